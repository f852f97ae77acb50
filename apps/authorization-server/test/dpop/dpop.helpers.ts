import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { expect } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  base64url,
  calculateJwkThumbprint,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';
import {
  authorizationRequest,
  authorize,
  RESOURCE,
  type AuthorizationRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

/** A client's DPoP key pair (RFC 9449 section 4), with its public JWK and thumbprint (`cnf.jkt`). */
export interface DpopKey {
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly privateJwk: JWK;
  readonly jkt: string;
}

export async function dpopKey(): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return {
    privateKey,
    publicJwk,
    privateJwk: await exportJWK(privateKey),
    jkt: await calculateJwkThumbprint(publicJwk, 'sha256'),
  };
}

/** What to put in a proof instead of the right values (`undefined` drops the member). */
export interface ProofOverrides {
  readonly htm?: string;
  readonly htu?: string;
  /** Seconds from now. */
  readonly iatOffset?: number;
  readonly jti?: string;
  readonly nonce?: string;
  readonly header?: Record<string, unknown>;
}

/** A DPoP proof JWT (RFC 9449 section 4.2) for a POST to `url`, signed by `key`. */
export async function proof(key: DpopKey, url: string, overrides: ProofOverrides = {}): Promise<string> {
  const payload: JWTPayload = {
    jti: overrides.jti ?? randomUUID(),
    htm: overrides.htm ?? 'POST',
    htu: overrides.htu ?? url,
    iat: Math.floor(Date.now() / 1000) + (overrides.iatOffset ?? 0),
    ...(overrides.nonce !== undefined ? { nonce: overrides.nonce } : {}),
  };
  return new SignJWT(payload)
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk, ...overrides.header })
    .sign(key.privateKey);
}

/** A proof with `alg: none` and no signature (RFC 9449 section 11.6: never accepted). */
export function unsignedProof(key: DpopKey, url: string): string {
  const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
  const header = encode({ typ: 'dpop+jwt', alg: 'none', jwk: key.publicJwk });
  const payload = encode({ jti: randomUUID(), htm: 'POST', htu: url, iat: Math.floor(Date.now() / 1000) });
  return `${header}.${payload}.`;
}

/** A proof MACed with HS256 under a shared secret, the public key in its header (never accepted either). */
export function symmetricProof(key: DpopKey, url: string): Promise<string> {
  return new SignJWT({ jti: randomUUID(), htm: 'POST', htu: url, iat: Math.floor(Date.now() / 1000) })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'HS256', jwk: key.publicJwk })
    .sign(new TextEncoder().encode('a shared secret that is thirty-two bytes or more'));
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Record<string, unknown>;
}

/**
 * POSTs a form with node:http, so that a header may be sent as several field lines (`DPoP: [a, b]`) and `Host` may
 * name another server; fetch merges the one and forbids the other.
 */
export function rawPost(
  url: string,
  form: Record<string, string | undefined>,
  headers: Record<string, string | string[]> = {},
): Promise<RawResponse> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) if (value !== undefined) body.append(name, value);
  const text = body.toString();
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(text),
          ...headers,
        },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {},
          });
        });
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(text);
  });
}

/** A token request with these DPoP header field values (none, one, or several). */
export function tokenRequestWithProof(
  as: AuthorizationServerFixture,
  form: Record<string, string | undefined>,
  proofs: string | readonly string[] | undefined,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const dpop: Record<string, string | string[]> =
    proofs === undefined ? {} : { dpop: typeof proofs === 'string' ? proofs : [...proofs] };
  return rawPost(`${as.app.url}/token`, form, { ...headers, ...dpop });
}

/** The token endpoint URL as the metadata publishes it: what `htu` must name. */
export const tokenEndpoint = (as: AuthorizationServerFixture): string => `${as.issuer}/token`;

/** An authorization code from the real login and consent pages, with the request that got it. */
export interface IssuedCode {
  readonly code: string;
  readonly request: AuthorizationRequest;
}

export async function codeFor(
  as: AuthorizationServerFixture,
  client: TestClient,
  user: { username: string; password: string },
  overrides: Record<string, string | undefined> = {},
): Promise<IssuedCode> {
  const request = authorizationRequest(as, client, { scope: 'notes:read notes:write', ...overrides });
  const callback = await authorize(new HeadlessUserAgent(), request, user, client);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code: ${callback.toString()}`);
  return { code, request };
}

/** The form of the code's token request. */
export function codeForm(
  client: TestClient,
  issued: IssuedCode,
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    grant_type: 'authorization_code',
    code: issued.code,
    redirect_uri: client.redirectUri,
    client_id: client.clientId,
    code_verifier: issued.request.verifier,
    resource: RESOURCE,
    ...(client.clientSecret ? { client_secret: client.clientSecret } : {}),
    ...extra,
  };
}

/** The form of a refresh request. */
export function refreshForm(client: TestClient, refreshToken: string): Record<string, string> {
  return {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.clientId,
    ...(client.clientSecret ? { client_secret: client.clientSecret } : {}),
  };
}

/** The `cnf` of an access token (its payload, decoded; the signature is the server's business). */
export function confirmationOf(accessToken: unknown): unknown {
  return decodeJwt(String(accessToken))['cnf'];
}

/**
 * A refused token request left no trace: the same rows as before, every code and refresh token as it was, no
 * grant revoked, and an error body, never a redirect.
 */
export async function expectRefusedWithoutTrace(
  as: AuthorizationServerFixture,
  send: () => Promise<RawResponse>,
  error: string,
): Promise<RawResponse> {
  const before = await snapshot(as);
  const response = await send();
  expect(response.body['error']).toBe(error);
  expect(response.status).toBe(400);
  expect(response.headers['location']).toBeUndefined();
  expect(response.body['access_token']).toBeUndefined();
  expect(await snapshot(as)).toEqual(before);
  return response;
}

async function snapshot(as: AuthorizationServerFixture) {
  const [counts, codes, refreshTokens, grants] = await Promise.all([
    as.counts(),
    as.prisma.authorizationCode.findMany({
      select: { codeHash: true, consumedAt: true },
      orderBy: { codeHash: 'asc' },
    }),
    as.prisma.refreshToken.findMany({
      select: { tokenHash: true, consumedAt: true },
      orderBy: { tokenHash: 'asc' },
    }),
    as.prisma.authorizationGrant.findMany({ select: { id: true, revokedAt: true }, orderBy: { id: 'asc' } }),
  ]);
  return { counts, codes, refreshTokens, grants };
}
