// The stack a shipping client meets in these tests: the authorization server (its real AppModule, with the
// test-only fetch options that map the clients' document hosts to loopback), this protected server (the notes MCP
// server) trusting it, and the clients' documents served under their real URLs. The person at the browser is the
// development user `demo`, on the authorization server's own login and consent pages.
import { randomBytes } from 'node:crypto';
import { expect } from '@jest/globals';
import type { PrismaClient } from '@portcullis/persistence';
import {
  freePort,
  HeadlessUserAgent,
  startApp,
  startClientDocumentHost,
  type ClientDocumentHost,
  type Person,
  type ShippingClient,
  type ShippingClientRun,
  type TestApp,
  type UserAgentResponse,
} from '@portcullis/testing';
// Apps are not libraries; this one import crosses the project boundary on purpose, in test support only.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as AuthorizationServerModule } from '../../../authorization-server/src/app.module.js';
import { decodeJwt } from 'jose';
import { AppModule } from '../../src/app.module.js';

export interface ShippingClientStack {
  readonly authorizationServer: TestApp;
  /** `http://localhost:<port>` */
  readonly issuer: string;
  /** The authorization server's database: what a flow registered and issued. */
  readonly prisma: PrismaClient;
  readonly protectedServer: TestApp;
  /** The MCP server URL a user enters: `http://localhost:<port>/mcp`. */
  readonly resource: string;
  readonly documents: ClientDocumentHost;
  close(): Promise<void>;
}

/**
 * Starts the stack for `clients`: the authorization server in its development configuration on PostgreSQL (the
 * `demo` user, documents on loopback allowed), with `env` on top.
 */
export async function startShippingClientStack(
  clients: readonly ShippingClient[],
  env: Record<string, string> = {},
): Promise<ShippingClientStack> {
  const documents = await startClientDocumentHost(clients);
  const [issuerPort, resourcePort] = [await freePort(), await freePort()];
  const issuer = `http://localhost:${issuerPort}`;
  const resource = `http://localhost:${resourcePort}/mcp`;
  const authorizationServer = await startApp(
    {
      configure: (source, overrides) =>
        AuthorizationServerModule.configure(source, overrides, {
          metadataDocumentFetch: documents.fetchOverrides,
        }),
    },
    {
      port: issuerPort,
      env: {
        ISSUER: issuer,
        COOKIE_SECRET: randomBytes(32).toString('base64url'),
        SEED_DEMO_USER: 'true',
        CIMD_ALLOW_LOOPBACK: 'true',
        RATE_LIMIT_TOKEN: '10000',
        RATE_LIMIT_LOGIN: '10000',
        RATE_LIMIT_REGISTER: '10000',
        RESOURCES: JSON.stringify([
          {
            uri: resource,
            name: 'Notes',
            scopes_supported: ['notes:read', 'notes:write'],
            scope_hierarchy: { notes: ['notes:read', 'notes:write'], 'notes:write': ['notes:read'] },
          },
        ]),
        ...env,
      },
    },
  );
  const protectedServer = await startApp(AppModule, {
    port: resourcePort,
    env: { RESOURCE_URI: resource, AUTHORIZATION_SERVER: issuer },
  });
  return {
    authorizationServer,
    issuer,
    prisma: authorizationServer.database.database.prisma,
    protectedServer,
    resource,
    documents,
    async close() {
      await protectedServer.close();
      await authorizationServer.close();
      await documents.close();
    },
  };
}

/**
 * `demo` at a browser without JavaScript: signs in, approves the consent page (and the one-click confirmation),
 * and stops at the redirect to the client without requesting it. Every page shown is added to `seen`.
 */
export function demoAtBrowser(seen: UserAgentResponse[] = [], ua = new HeadlessUserAgent()): Person {
  return async (authorizationUrl, redirectUri) => {
    let response = await ua.get(authorizationUrl);
    for (let step = 0; step < 12; step++) {
      const location = response.location;
      if (location !== undefined && [302, 303].includes(response.status)) {
        if (location.startsWith(redirectUri)) return new URL(location);
        response = await ua.follow(response);
        continue;
      }
      if (response.status !== 200) {
        const error = /<p class="error"[^>]*>(.*?)<\/p>/su.exec(response.body)?.[1]?.replace(/<[^>]+>/gu, '');
        throw new Error(`the flow stopped on ${response.url}: ${response.status} ${error ?? response.body}`);
      }
      seen.push(response);
      const form = response.form();
      response =
        'username' in form.fields
          ? await ua.submit(form, { username: 'demo', password: 'demo' })
          : await ua.submit(form, {}, { button: { name: 'decision', value: 'approve' } });
    }
    throw new Error('the flow did not come back to the client');
  };
}

/** The token's `aud`, `client_id` and `scope` claims (the access tokens are JWTs). */
export function accessTokenClaims(run: ShippingClientRun): {
  aud: unknown;
  client_id: unknown;
  scope: unknown;
} {
  const { aud, client_id, scope } = decodeJwt(run.token['access_token'] as string);
  return { aud, client_id, scope };
}

/**
 * What every completed replay shows: the authorization response named this issuer (RFC 9207), the token is for
 * the resource and the client, and the tool calls reached the notes server (a note written when the token may
 * write, and listed).
 */
export function expectToolCallCompleted(run: ShippingClientRun, stack: ShippingClientStack): void {
  expect(run.callback.searchParams.get('iss')).toBe(stack.issuer);
  expect(accessTokenClaims(run)).toMatchObject({ aud: stack.resource, client_id: run.clientId });
  expect(run.tools.called.at(-1)).toBe('notes_list');
  if (run.tools.created) {
    expect(run.tools.listed.map((note) => note.id)).toContain(run.tools.created.id);
  }
}
