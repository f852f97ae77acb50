// The libs/extensions README's worked example (com.example/ticket-grant), composed in the real authorization server
// beside a second toy extension that adds a token claim, over real HTTP: RFC 8414 2 and OIDC Discovery 3 (an
// extension's metadata member beside the host's), RFC 6749 4.5 (an extension grant at /token), RFC 9068 2.2 (an
// extra access token claim, never a registered one), RFC 6749 5.2 (a refusal keeps its OAuth error code).
// The template for booting the host with an extension of one's own in a test.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineExtension, ExtensionRegistry, type JsonObject } from '@portcullis/extensions';
import type { PortcullisAppModule } from '@portcullis/platform';
import { OAuthError } from '@portcullis/protocol';
import { HeadlessUserAgent, requestLogLines } from '@portcullis/testing';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { AppModule } from '../../src/app.module.js';
import {
  authorizationRequest,
  authorize,
  redeem,
  RESOURCE,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

/** The extension's own single-use ticket store; the tests issue tickets into it. */
function ticketStore() {
  const open = new Map<string, { clientId: string; subject: string; scope: string[] }>();
  return {
    issue(clientId: string, subject: string, scope: string[]): string {
      const ticket = randomBytes(16).toString('base64url');
      open.set(ticket, { clientId, subject, scope });
      return ticket;
    },
    redeem(ticket: string | undefined, clientId: string) {
      const found = ticket === undefined ? undefined : open.get(ticket);
      if (!found || found.clientId !== clientId) return undefined;
      open.delete(ticket as string);
      return found;
    },
  };
}

// The README's worked example, as printed there.
const TICKET_GRANT = 'urn:example:params:oauth:grant-type:ticket';
const tickets = ticketStore();

const ticketGrant = defineExtension({
  id: 'com.example/ticket-grant',
  version: '1.0.0',
  authorizationServer: {
    metadata: ({ issuer }) => ({ ticket_issuance_endpoint: `${issuer}/tickets` }),
    grantTypes: {
      [TICKET_GRANT]: async (request, context) => {
        const ticket = tickets.redeem(request.params['ticket'], request.client.clientId);
        if (!ticket) throw new OAuthError('invalid_grant', 'The ticket is unknown, used or expired.');
        return context.issueTokens({
          subject: ticket.subject,
          scope: ticket.scope,
          resources: request.resources,
        });
      },
    },
  },
});

/** A second extension, composed beside the first without either naming the other: one claim, ticket tokens only. */
const ticketClaim = defineExtension({
  id: 'com.example/ticket-claim',
  version: '1.0.0',
  authorizationServer: {
    tokenClaims: ({ grantType }): JsonObject => (grantType === TICKET_GRANT ? { ticket_redeemed: true } : {}),
  },
});

/** A broken extension: it tries to set `sub`, which only the host may set (RFC 7519 4.1.2). */
const subjectOverride = defineExtension({
  id: 'com.example/subject-override',
  version: '1.0.0',
  authorizationServer: {
    tokenClaims: () => ({ sub: 'someone-else' }),
  },
});

/** The real AppModule, configured from its environment as main.ts does, with `extensions` composed by the host. */
function appWithExtensions(extensions: ExtensionRegistry): PortcullisAppModule {
  return { configure: (env, overrides) => AppModule.configure(env, overrides, { extensions }) };
}

/** A confidential client registered for the ticket grant only, as an operator would register it. */
async function ticketClient(as: AuthorizationServerFixture): Promise<Required<TestClient>> {
  const client = await as.createClient({
    confidential: 'client_secret_basic',
    grantTypes: [TICKET_GRANT],
    redirectUris: [],
  });
  return { ...client, clientSecret: client.clientSecret! };
}

function redeemTicket(
  as: AuthorizationServerFixture,
  client: Required<TestClient>,
  ticket: string,
  headers: Record<string, string> = {},
) {
  const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
  return tokenRequest(
    as,
    { grant_type: TICKET_GRANT, ticket, resource: RESOURCE },
    { authorization: `Basic ${basic}`, ...headers },
  );
}

/** Runs `attempt` and asserts that it issued and stored nothing: no token row, grant, code or consent. */
async function expectNothingIssued<T>(as: AuthorizationServerFixture, attempt: () => Promise<T>): Promise<T> {
  const before = await as.counts();
  const result = await attempt();
  expect(await as.counts()).toEqual(before);
  return result;
}

/** An extension that tries to replace a field the host publishes but the registry does not reserve. */
const shadow = defineExtension({
  id: 'com.example/shadow',
  version: '1.0.0',
  authorizationServer: { metadata: { userinfo_endpoint: 'https://attacker.example/userinfo' } },
});

describe('an extension whose claims hook sets a registered claim, in the live server', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    // Composition cannot know the claims a hook returns, so this boots; the registry refuses them per call.
    // It boots first in this file: nestjs-pino keeps one logger per process, the first app's, so only the first
    // app's `captureLogs` sees its log lines.
    as = await startAuthorizationServer({
      appModule: appWithExtensions(ExtensionRegistry.compose([ticketGrant, subjectOverride, shadow])),
      captureLogs: true,
    });
  });
  afterAll(async () => {
    await as?.close();
  });

  it("cannot shadow a field of the host's metadata (OpenID Connect's userinfo_endpoint)", async () => {
    for (const path of ['oauth-authorization-server', 'openid-configuration']) {
      const metadata = (await (await fetch(`${as.issuer}/.well-known/${path}`)).json()) as Record<
        string,
        unknown
      >;
      expect(metadata['userinfo_endpoint']).toBe(`${as.issuer}/userinfo`);
    }
  });

  it('answers /token with a server_error JSON body that names no cause, issues nothing, and logs the cause', async () => {
    const client = await ticketClient(as);
    const ticket = tickets.issue(client.clientId, 'ticket-holder', ['notes:read']);
    const requestId = randomUUID();
    const response = await expectNothingIssued(as, () =>
      redeemTicket(as, client, ticket, { 'x-request-id': requestId }),
    );
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      error: 'server_error',
      error_description: 'the server could not process the request',
    });
    expect(await as.prisma.accessToken.count({ where: { clientId: client.clientId } })).toBe(0);
    // The cause is the operator's: logged with the extension and the claim in dispute.
    const lines = (await requestLogLines(() => as.app.logs(), requestId))
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; err?: Record<string, unknown> });
    expect(lines.find(({ msg }) => msg === 'unexpected error')?.err).toMatchObject({
      type: 'ExtensionRegistryError',
      extensionIds: ['com.example/subject-override'],
      subject: 'sub',
    });
  });
});

describe('the README worked example, composed with a claims extension in the live server', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({
      appModule: appWithExtensions(ExtensionRegistry.compose([ticketGrant, ticketClaim])),
    });
  });
  afterAll(async () => {
    await as?.close();
  });

  it.each(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'])(
    'publishes the extension metadata member and grant type in %s, beside the host members',
    async (path) => {
      const response = await fetch(`${as.app.url}${path}`);
      expect(response.status).toBe(200);
      const metadata = (await response.json()) as Record<string, unknown>;
      expect(metadata['ticket_issuance_endpoint']).toBe(`${as.issuer}/tickets`);
      expect(metadata['grant_types_supported']).toEqual([
        'authorization_code',
        'refresh_token',
        TICKET_GRANT,
      ]);
      expect(metadata).toMatchObject({ issuer: as.issuer, token_endpoint: `${as.issuer}/token` });
    },
  );

  it('redeems a ticket at /token for an access token carrying the extension claim beside the registered ones', async () => {
    const client = await ticketClient(as);
    const ticket = tickets.issue(client.clientId, 'ticket-holder', ['notes:read']);
    const before = await as.counts();
    const response = await redeemTicket(as, client, ticket);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 300,
      scope: 'notes:read',
    });
    const { payload } = await jwtVerify(
      response.body['access_token'] as string,
      createRemoteJWKSet(new URL(`${as.issuer}/jwks`)),
      { issuer: as.issuer, audience: RESOURCE, typ: 'at+jwt' },
    );
    expect(payload).toMatchObject({
      ticket_redeemed: true,
      sub: 'ticket-holder',
      client_id: client.clientId,
      scope: 'notes:read',
    });
    // One access token row, for the ticket holder; the grant has no refresh token, code, grant or consent.
    expect(await as.counts()).toEqual({ ...before, accessTokens: before.accessTokens + 1 });
    const rows = await as.prisma.accessToken.findMany({ where: { clientId: client.clientId } });
    expect(rows.map(({ subject, audience }) => ({ subject, audience }))).toEqual([
      { subject: 'ticket-holder', audience: RESOURCE },
    ]);
  });

  it('leaves the claim out of a token of another grant, for which the hook returns nothing', async () => {
    const client = await as.createClient();
    const user = await as.createUser();
    const request = authorizationRequest(as, client);
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const response = await redeem(as, client, callback, request);
    expect(response.status).toBe(200);
    const payload = decodeJwt(response.body['access_token'] as string);
    expect(payload).toMatchObject({ sub: user.id, client_id: client.clientId, scope: 'notes:read' });
    expect(payload).not.toHaveProperty('ticket_redeemed');
  });

  it.each([
    ['an unknown ticket', () => 'no-such-ticket'],
    [
      'a ticket issued to another client',
      () => tickets.issue('someone-else', 'ticket-holder', ['notes:read']),
    ],
  ])('answers %s with the invalid_grant the handler throws, and issues nothing', async (_why, ticketFor) => {
    const client = await ticketClient(as);
    const response = await expectNothingIssued(as, () => redeemTicket(as, client, ticketFor()));
    expect(response.status).toBe(400);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      error: 'invalid_grant',
      error_description: 'The ticket is unknown, used or expired.',
    });
  });

  it('refuses a ticket the second time with invalid_grant, issuing nothing more', async () => {
    const client = await ticketClient(as);
    const ticket = tickets.issue(client.clientId, 'ticket-holder', ['notes:read']);
    expect((await redeemTicket(as, client, ticket)).status).toBe(200);
    const replay = await expectNothingIssued(as, () => redeemTicket(as, client, ticket));
    expect({ status: replay.status, error: replay.body['error'] }).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    expect(replay.body['access_token']).toBeUndefined();
  });
});
