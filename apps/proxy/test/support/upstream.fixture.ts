// A real third-party authorization server for the proxy to sign people in at: panva's oidc-provider on a loopback
// port, with one static confidential client (the proxy's), its development login and consent pages (any login
// name signs in; the name is the `sub`; `profile` and `email` claims derived from it), behind a recording forwarder that keeps every exchange, so a test can
// list every code and token the upstream handed out and every one it was shown. The forwarder can also hold
// requests unanswered, to play a slow upstream.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRecordingForwarder, type RecordedExchange } from './recording-forwarder.js';

export interface UpstreamFixture {
  /** `http://127.0.0.1:<port>`: the forwarder's address, which is the issuer. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Every exchange with the upstream, in order. */
  readonly exchanges: RecordedExchange[];
  /** Every code (from redirects) and token (from JSON answers) the upstream issued so far. */
  issued(): Set<string>;
  /** Requests to paths starting with `prefix` get no answer, until `stall(undefined)`. */
  stall(prefix: string | undefined): void;
  close(): Promise<void>;
}

export interface UpstreamOptions {
  readonly redirectUri: string;
  /**
   * An account's claims in each of the two statements the upstream makes about it: its ID token and its UserInfo
   * answer. Given, the ID token carries the claims of the scopes granted too (oidc-provider's
   * `conformIdTokenClaims` off), so the two can disagree. Default: the same claims derived from the login name,
   * in UserInfo only.
   */
  readonly accountClaims?: (id: string, use: 'id_token' | 'userinfo') => Record<string, unknown>;
}

/** Starts the upstream with the proxy's client registered for `redirectUri`. */
export async function startUpstream(options: UpstreamOptions): Promise<UpstreamFixture> {
  const clientId = 'portcullis-proxy';
  const clientSecret = randomBytes(32).toString('base64url');
  // The provider needs its issuer, the forwarder's address, before it exists: listen first, attach it after.
  const backend = createServer();
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const forwarder = await startRecordingForwarder(
    `http://127.0.0.1:${(backend.address() as AddressInfo).port}`,
  );
  const issuer = forwarder.url;
  // oidc-provider warns on the console about its development defaults, which are what a test wants.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).startsWith('oidc-provider')) warn(...args);
  };
  const { default: Provider } = await import('oidc-provider');
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    claims: { openid: ['sub'], profile: ['preferred_username', 'name'], email: ['email', 'email_verified'] },
    // Every account has a name and a verified address, which the proxy passes on as its own claims when it asks
    // for the profile and email scopes.
    findAccount: (_context, id) => ({
      accountId: id,
      claims: (use: string) =>
        options.accountClaims
          ? { ...options.accountClaims(id, use === 'id_token' ? 'id_token' : 'userinfo'), sub: id }
          : {
              sub: id,
              preferred_username: id,
              name: `${id} (upstream)`,
              email: `${id}@upstream.example`,
              email_verified: true,
            },
    }),
    ...(options.accountClaims ? { conformIdTokenClaims: false } : {}),
    features: { devInteractions: { enabled: true }, revocation: { enabled: true } },
    pkce: { required: () => true },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      IdToken: 600,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
    },
  });
  backend.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    exchanges: forwarder.exchanges,
    issued: () => issuedValues(forwarder.exchanges),
    stall: (prefix) => forwarder.stall(prefix),
    async close() {
      console.warn = warn;
      await forwarder.close();
      await new Promise<void>((resolve) => {
        backend.closeAllConnections();
        backend.close(() => resolve());
      });
    },
  };
}

function issuedValues(exchanges: readonly RecordedExchange[]): Set<string> {
  const issued = new Set<string>();
  for (const exchange of exchanges) {
    const location = exchange.responseHeaders?.location;
    if (typeof location === 'string') {
      const code = new URL(location, 'http://upstream.invalid').searchParams.get('code');
      if (code) issued.add(code);
    }
    if (exchange.responseHeaders?.['content-type']?.includes('json') && exchange.responseBody) {
      const json = JSON.parse(exchange.responseBody) as Record<string, unknown>;
      for (const name of ['access_token', 'refresh_token', 'id_token']) {
        const value = json[name];
        if (typeof value === 'string') issued.add(value);
      }
    }
  }
  return issued;
}
