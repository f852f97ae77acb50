// The Portcullis authorization server (apps/authorization-server, booted exactly as its main.ts does) as the
// proxy's upstream, the arrangement `npm start` runs: the proxy's confidential static client registered there,
// one user with a password.
import { ClientRepository, hashClientSecret, UserRepository } from '@portcullis/authorization';
import { freePort, startApp, type TestApp } from '@portcullis/testing';
// The proxy's end-to-end tests need the real authorization server as an upstream; apps are not libraries, so
// this one import crosses the project boundary on purpose, in test support only.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as AuthorizationServerModule } from '../../../authorization-server/src/app.module.js';

export interface PortcullisUpstream {
  readonly app: TestApp;
  /** `http://localhost:<port>` */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly user: { readonly username: string; readonly password: string };
  close(): Promise<void>;
}

export async function startPortcullisUpstream(options: {
  redirectUri: string;
  resource: string;
}): Promise<PortcullisUpstream> {
  const port = await freePort();
  const issuer = `http://localhost:${port}`;
  const app = await startApp(AuthorizationServerModule, {
    port,
    env: {
      ISSUER: issuer,
      COOKIE_SECRET: 'c'.repeat(43),
      RESOURCES: JSON.stringify([{ uri: options.resource, scopes_supported: ['notes:read'] }]),
    },
  });
  const prisma = app.database.database.prisma;
  const clientSecret = 'proxy-upstream-secret-'.padEnd(43, 'x');
  await new ClientRepository(prisma).create({
    clientId: 'portcullis-proxy',
    clientName: 'Portcullis proxy',
    redirectUris: [options.redirectUri],
    grantTypes: ['authorization_code', 'refresh_token'],
    tokenEndpointAuthMethod: 'client_secret_basic',
    applicationType: 'web',
    origin: 'preregistered',
    secretHash: hashClientSecret(clientSecret),
  });
  const user = { username: 'ivan', password: 'correct horse battery staple' };
  await new UserRepository(prisma).create(user.username, user.password);
  return { app, issuer, clientId: 'portcullis-proxy', clientSecret, user, close: () => app.close() };
}
