// The Portcullis authorization server (apps/authorization-server, booted exactly as its main.ts does), for tests
// that need what only the real one does: tokens issued through login and consent, revoked (RFC 7009) and
// introspected (RFC 7662) from its database.
import { randomBytes } from 'node:crypto';
import {
  ClientRepository,
  generateClientSecret,
  hashClientSecret,
  UserRepository,
} from '@portcullis/authorization';
import { codeChallengeS256, generateCodeVerifier } from '@portcullis/protocol';
import { HeadlessUserAgent, startApp, type TestApp } from '@portcullis/testing';
// Apps are not libraries; this one import crosses the project boundary on purpose, in test support only.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as AuthorizationServerModule } from '../../../authorization-server/src/app.module.js';

const CLIENT_ID = 'notes-cli';
const REDIRECT_URI = 'http://127.0.0.1/callback';

export interface PortcullisAuthorizationServer {
  readonly app: TestApp;
  /** `http://localhost:<port>` */
  readonly issuer: string;
  /** Runs the authorization code flow for a public client on the real pages; returns the access token. */
  issueAccessToken(resource: string, scope?: string): Promise<string>;
  /** Revokes `token` at the revocation endpoint as the client it was issued to (RFC 7009 2.1). */
  revoke(token: string): Promise<void>;
  close(): Promise<void>;
}

/** The credentials a protected server introspects with (its INTROSPECTION_CLIENT_ID and _SECRET). */
export interface IntrospectionClient {
  readonly id: string;
  readonly secret: string;
}

/** New credentials for {@link startPortcullisAuthorizationServer} to register. */
export function newIntrospectionClient(id = 'protected-server'): IntrospectionClient {
  return { id, secret: generateClientSecret() };
}

/**
 * Starts the authorization server on `port` (chosen before boot: its issuer names it) for `resources`, with one
 * user, one public client, and each of `introspectionClients` as the resource server of its resource (introspection
 * answers only the resource server of a token's audience).
 */
export async function startPortcullisAuthorizationServer(options: {
  port: number;
  resources: readonly string[];
  introspectionClients: readonly (IntrospectionClient & { readonly resource: string })[];
}): Promise<PortcullisAuthorizationServer> {
  const issuer = `http://localhost:${options.port}`;
  const app = await startApp(AuthorizationServerModule, {
    port: options.port,
    env: {
      ISSUER: issuer,
      COOKIE_SECRET: randomBytes(32).toString('base64url'),
      RATE_LIMIT_TOKEN: '10000',
      RATE_LIMIT_LOGIN: '10000',
      RESOURCES: JSON.stringify(
        options.resources.map((uri) => ({ uri, scopes_supported: ['notes:read', 'notes:write'] })),
      ),
    },
  });
  const prisma = app.database.database.prisma;
  const clients = new ClientRepository(prisma);
  await clients.create({
    clientId: CLIENT_ID,
    clientName: 'Notes CLI',
    redirectUris: [REDIRECT_URI],
    grantTypes: ['authorization_code', 'refresh_token'],
    tokenEndpointAuthMethod: 'none',
    applicationType: 'native',
    origin: 'preregistered',
  });
  for (const introspectionClient of options.introspectionClients) {
    await clients.create({
      clientId: introspectionClient.id,
      clientName: `Protected server (${introspectionClient.resource})`,
      redirectUris: [],
      grantTypes: [],
      tokenEndpointAuthMethod: 'client_secret_basic',
      applicationType: 'web',
      origin: 'preregistered',
      secretHash: hashClientSecret(introspectionClient.secret),
      resourceServer: introspectionClient.resource,
    });
  }
  const user = { username: 'dana', password: 'correct horse battery staple' };
  await new UserRepository(prisma).create(user.username, user.password);

  const post = (path: string, form: Record<string, string>) =>
    fetch(`${app.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });

  return {
    app,
    issuer,
    async issueAccessToken(resource, scope = 'notes:read notes:write') {
      const verifier = generateCodeVerifier();
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: CLIENT_ID,
        redirect_uri: REDIRECT_URI,
        code_challenge: codeChallengeS256(verifier),
        code_challenge_method: 'S256',
        resource,
        scope,
        state: randomBytes(16).toString('base64url'),
      });
      const ua = new HeadlessUserAgent();
      const isCallback = (url: string) => url.startsWith(REDIRECT_URI);
      let step = await ua.followUntil(await ua.get(`${app.url}/authorize?${query.toString()}`), isCallback);
      for (let pages = 0; !step.stoppedAt && pages < 4; pages++) {
        const form = step.response.form();
        const next =
          'username' in form.fields
            ? await ua.submit(form, user)
            : await ua.submit(form, {}, { button: { name: 'decision', value: 'approve' } });
        step = await ua.followUntil(next, isCallback);
      }
      const code = step.stoppedAt?.searchParams.get('code');
      if (!code) throw new Error(`the authorization did not come back with a code: ${step.response.status}`);
      const response = await post('/token', {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        client_id: CLIENT_ID,
        code_verifier: verifier,
        resource,
      });
      const body = (await response.json()) as { access_token?: string };
      if (response.status !== 200 || !body.access_token) {
        throw new Error(`the token request failed: ${response.status} ${JSON.stringify(body)}`);
      }
      return body.access_token;
    },
    async revoke(token) {
      const response = await post('/revoke', {
        token,
        token_type_hint: 'access_token',
        client_id: CLIENT_ID,
      });
      if (response.status !== 200) throw new Error(`revocation failed: ${response.status}`);
    },
    close: () => app.close(),
  };
}
