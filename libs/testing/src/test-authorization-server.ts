/**
 * A real authorization server for tests, on loopback HTTP: RFC 8414 metadata (or only OpenID Connect discovery),
 * a JWK set, RFC 7662 introspection, and ES256 JWT access tokens minted with jose. It counts the requests each
 * path receives, so tests can prove what the resource server fetched, and when it did not.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export interface MintOptions {
  /** Claims added to (or replacing) the defaults; `undefined` removes a default claim. */
  claims?: Record<string, unknown>;
  /** Header members added to (or replacing) `alg`, `typ`, `kid`. */
  header?: Record<string, unknown>;
  /** Sign with this key instead of the published one. */
  key?: SigningKey;
}

export interface TestAuthorizationServerOptions {
  /** The audience minted tokens carry by default. */
  audience: string;
  /** Which discovery document is served: RFC 8414 (default) or only OpenID Connect discovery. */
  discovery?: 'rfc8414' | 'openid-configuration' | 'none';
  /** The `issuer` the metadata claims; default the server's own URL. */
  claimedIssuer?: string;
  /** Introspection client credentials it accepts. */
  introspectionClient?: { id: string; secret: string };
  /** The loopback port to listen on (default: any free one). */
  port?: number;
  /** The `Cache-Control` of the JWK set (default: none). */
  jwksCacheControl?: string;
}

export interface TestAuthorizationServer {
  readonly issuer: string;
  readonly key: SigningKey;
  /** How many requests each path received. */
  hits(path: string): number;
  mint(options?: MintOptions): Promise<string>;
  /** Replaces the published key with a new one; returns it. */
  rotate(): Promise<SigningKey>;
  /** Publishes `key` beside the signing key (as a rotation stages the next one), without signing with it. */
  publish(key: SigningKey): void;
  /** Makes the JWK set answer with this status (a failure), or serve the keys again with `undefined`. */
  failJwks(status: number | undefined): void;
  /** Makes `token` introspect as `response` (default: `{ active: false }`). */
  setIntrospection(token: string, response: Record<string, unknown>): void;
  /**
   * How the token endpoint answers (default: 400 `unsupported_grant_type`), given the request's form and
   * `Authorization` header; every request is in {@link tokenRequests}.
   */
  answerTokenRequests(
    answer: (form: URLSearchParams, authorization: string | undefined) => TokenAnswer,
  ): void;
  readonly tokenRequests: readonly { readonly form: URLSearchParams; readonly authorization?: string }[];
  close(): Promise<void>;
}

/** An answer of the test authorization server's token endpoint. */
export interface TokenAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export const PATHS = {
  metadata: '/.well-known/oauth-authorization-server',
  openIdConfiguration: '/.well-known/openid-configuration',
  jwks: '/jwks',
  introspection: '/introspect',
  token: '/token',
} as const;

export async function createSigningKey(kid: string = randomUUID()): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export async function startTestAuthorizationServer(
  options: TestAuthorizationServerOptions,
): Promise<TestAuthorizationServer> {
  const counts = new Map<string, number>();
  const introspection = new Map<string, Record<string, unknown>>();
  let key = await createSigningKey();
  const alsoPublished: SigningKey[] = [];
  let issuer = '';
  let jwksFailure: number | undefined;
  const tokenRequests: { form: URLSearchParams; authorization?: string }[] = [];
  let tokenAnswer: (form: URLSearchParams, authorization: string | undefined) => TokenAnswer = () => ({
    status: 400,
    body: { error: 'unsupported_grant_type' },
  });

  const metadata = () => ({
    issuer: options.claimedIssuer ?? issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}${PATHS.token}`,
    jwks_uri: `${issuer}${PATHS.jwks}`,
    introspection_endpoint: `${issuer}${PATHS.introspection}`,
    response_types_supported: ['code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['ES256'],
    code_challenge_methods_supported: ['S256'],
  });

  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const discovery = options.discovery ?? 'rfc8414';
    if (path === PATHS.metadata && discovery === 'rfc8414') return json(response, 200, metadata());
    if (path === PATHS.openIdConfiguration && discovery === 'openid-configuration') {
      return json(response, 200, metadata());
    }
    if (path === PATHS.jwks) {
      return jwksFailure
        ? json(response, jwksFailure, { error: 'unavailable' })
        : json(
            response,
            200,
            { keys: [key, ...alsoPublished].map((published) => published.publicJwk) },
            options.jwksCacheControl ? { 'cache-control': options.jwksCacheControl } : {},
          );
    }
    if (path === PATHS.introspection && request.method === 'POST') {
      void readBody(request).then((body) => {
        const client = options.introspectionClient;
        const expected = client
          ? `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`
          : '';
        if (!client || request.headers.authorization !== expected) {
          return json(response, 401, { error: 'invalid_client' });
        }
        const token = new URLSearchParams(body).get('token') ?? '';
        json(response, 200, introspection.get(token) ?? { active: false });
      });
      return;
    }
    if (path === PATHS.token && request.method === 'POST') {
      void readBody(request).then((body) => {
        const form = new URLSearchParams(body);
        const { authorization } = request.headers;
        tokenRequests.push({ form, ...(authorization ? { authorization } : {}) });
        const answer = tokenAnswer(form, authorization);
        json(response, answer.status, answer.body, { 'cache-control': 'no-store' });
      });
      return;
    }
    json(response, 404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    get issuer() {
      return issuer;
    },
    get key() {
      return key;
    },
    hits: (path) => counts.get(path) ?? 0,
    async mint(mint: MintOptions = {}) {
      const signing = mint.key ?? key;
      const now = Math.floor(Date.now() / 1000);
      const claims: Record<string, unknown> = {
        iss: issuer,
        sub: 'user-1',
        aud: options.audience,
        client_id: 'client-1',
        scope: 'notes:read',
        iat: now,
        exp: now + 300,
        jti: randomUUID(),
        ...mint.claims,
      };
      for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
      const header = { alg: 'ES256', typ: 'at+jwt', kid: signing.kid, ...mint.header };
      return new SignJWT(claims as JWTPayload)
        .setProtectedHeader(header as { alg: string })
        .sign(signing.privateKey);
    },
    async rotate() {
      key = await createSigningKey();
      return key;
    },
    publish: (published) => {
      alsoPublished.push(published);
    },
    failJwks: (status) => {
      jwksFailure = status;
    },
    setIntrospection: (token, response) => introspection.set(token, response),
    answerTokenRequests: (answer) => {
      tokenAnswer = answer;
    },
    tokenRequests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (!server.listening) return resolve();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
