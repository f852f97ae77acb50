// The io.modelcontextprotocol/oauth-client-credentials extension composed by configuration (EXTENSIONS), over real
// HTTP: RFC 6749 4.4 (client credentials grant), 4.4.3 (no refresh token), 5.2 (errors); RFC 8707 2 (audience);
// RFC 8414 2 (grant_types_supported); MCP SEP-1046,
// https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/oauth-client-credentials.mdx
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigError, parseEnv } from '@portcullis/platform';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { runAdmin } from '../../src/admin/admin.js';
import { envSchema } from '../../src/env.schema.js';
import {
  RESOURCE,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

const EXTENSIONS = 'client-credentials';

function basic(clientId: string, secret: string): Record<string, string> {
  const encode = (value: string) => new URLSearchParams([['', value]]).toString().slice(1);
  return {
    authorization: `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`,
  };
}

describe('EXTENSIONS', () => {
  it('refuses a name that is neither built in nor a module specifier at boot, in one line naming it and the known ones', () => {
    let error: unknown;
    try {
      parseEnv(envSchema, { EXTENSIONS: 'client-credentials,Telepathy' });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toBe(
      'invalid configuration: EXTENSIONS names "Telepathy", which is neither a built-in extension (known: client-credentials, dpop, enterprise-managed-authorization, workload-identity) nor a module specifier (a package name, a ./relative or /absolute path)',
    );
    expect(message).not.toContain('\n');
  });

  it('composes none when unset or empty, and trims and de-duplicates names', () => {
    expect(parseEnv(envSchema, {}).EXTENSIONS.list()).toEqual([]);
    expect(parseEnv(envSchema, { EXTENSIONS: ' ' }).EXTENSIONS.list()).toEqual([]);
    expect(
      parseEnv(envSchema, { EXTENSIONS: ' client-credentials , client-credentials' })
        .EXTENSIONS.list()
        .map(({ id }) => id),
    ).toEqual(['io.modelcontextprotocol/oauth-client-credentials']);
  });
});

describe('the client credentials grant (EXTENSIONS=client-credentials)', () => {
  let as: AuthorizationServerFixture;
  const env = { EXTENSIONS };

  /** Registers a client the way an operator does: `portcullis-admin clients create --grant client_credentials`. */
  async function admin(...args: string[]): Promise<{ client_id: string; client_secret: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(
      ['clients', 'create', '--name', 'Machine', '--grant', 'client_credentials', ...args, '--json'],
      env,
      { out: (text) => out.push(text), err: (text) => err.push(text) },
      { database: as.app.database.database },
    );
    expect({ code, err: err.join('\n') }).toEqual({ code: 0, err: '' });
    return JSON.parse(out.join('\n')) as { client_id: string; client_secret: string };
  }

  const grant = (params: Record<string, string | undefined>, headers: Record<string, string> = {}) =>
    tokenRequest(as, { grant_type: 'client_credentials', resource: RESOURCE, ...params }, headers);

  /** Asserts a refusal with `error`, and that nothing was issued or stored. */
  async function expectRefused(
    attempt: () => Promise<{ status: number; body: Record<string, unknown> }>,
    status: number,
    error: string,
  ) {
    const before = await as.counts();
    const response = await attempt();
    expect({ status: response.status, error: response.body['error'] }).toEqual({ status, error });
    expect(response.body['access_token']).toBeUndefined();
    expect(await as.counts()).toEqual(before);
  }

  beforeAll(async () => {
    as = await startAuthorizationServer({ env });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('lists client_credentials in grant_types_supported beside the built-in grants', async () => {
    const metadata = (await (
      await fetch(`${as.app.url}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, string[]>;
    expect(metadata['grant_types_supported']).toEqual([
      'authorization_code',
      'refresh_token',
      'client_credentials',
    ]);
    // SEP-1046 "Server Metadata Requirements"
    expect(metadata['token_endpoint_auth_methods_supported']).toContain('client_secret_basic');
  });

  it('issues a token for the client itself: sub is the client id, aud the resource, no refresh token', async () => {
    const client = await admin('--scope', 'notes:read notes:write');
    const before = await as.counts();
    const response = await grant({ scope: 'notes:read' }, basic(client.client_id, client.client_secret));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 300,
      scope: 'notes:read',
    });
    const { payload, protectedHeader } = await jwtVerify(
      response.body['access_token'] as string,
      createRemoteJWKSet(new URL(`${as.issuer}/jwks`)),
      { issuer: as.issuer, audience: RESOURCE, typ: 'at+jwt' },
    );
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({
      sub: client.client_id,
      client_id: client.client_id,
      scope: 'notes:read',
    });
    // One access token recorded; no code, grant, refresh token or consent.
    expect(await as.counts()).toEqual({ ...before, accessTokens: before.accessTokens + 1 });
  });

  it('defaults to the registered scope, and accepts client_secret_post for a client registered with it', async () => {
    const registered = await admin('--scope', 'notes:read');
    const basicResponse = await grant({}, basic(registered.client_id, registered.client_secret));
    expect(basicResponse.body['scope']).toBe('notes:read');

    const post = await admin('--auth', 'client_secret_post');
    const postResponse = await grant({ client_id: post.client_id, client_secret: post.client_secret });
    expect(postResponse.status).toBe(200);
    // No registered scope: the resource's scopes_supported, as for the host's other grants.
    expect(postResponse.body['scope']).toBe('notes:read notes:write');
  });

  it('refuses a public client (a client registered for the grant with `none`)', async () => {
    const client = await as.createClient({ grantTypes: ['client_credentials'], redirectUris: [] });
    await expectRefused(() => grant({ client_id: client.clientId }), 401, 'invalid_client');
  });

  it('refuses a public client that is not registered for the grant', async () => {
    const client = await as.createClient();
    await expectRefused(() => grant({ client_id: client.clientId }), 400, 'unauthorized_client');
  });

  it('refuses a confidential client that is not registered for the grant', async () => {
    const client = await as.createClient({ confidential: 'client_secret_basic' });
    await expectRefused(
      () => grant({}, basic(client.clientId, client.clientSecret!)),
      400,
      'unauthorized_client',
    );
  });

  it('is never self-registered: dynamic registration refuses the grant and stores nothing', async () => {
    const clients = await as.prisma.client.count();
    const response = await fetch(`${as.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Self-made machine',
        grant_types: ['client_credentials'],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
        application_type: 'web',
      }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_client_metadata');
    expect(body.error_description).toContain('registered by the operator');
    expect(await as.prisma.client.count()).toBe(clients);
  });

  it('refuses a wrong secret and an unknown client alike', async () => {
    const client = await admin();
    await expectRefused(
      () => grant({}, basic(client.client_id, `${client.client_secret}x`)),
      401,
      'invalid_client',
    );
    await expectRefused(() => grant({}, basic('cc_nobody', client.client_secret)), 401, 'invalid_client');
    await expectRefused(() => grant({ client_id: client.client_id }), 401, 'invalid_client');
  });

  it.each([
    ['outside its registered scope', 'notes:write'],
    ['partly outside its registered scope', 'notes:read notes:write'],
    ['naming an end-user', 'openid'],
    ['asking for a refresh token', 'notes:read offline_access'],
    ['malformed', 'notes:read  notes:write'],
  ])('refuses a scope %s (%j) with invalid_scope', async (_why, scope) => {
    const client = await admin('--scope', 'notes:read');
    await expectRefused(
      () => grant({ scope }, basic(client.client_id, client.client_secret)),
      400,
      'invalid_scope',
    );
  });

  it.each(['email', 'notes:read profile'])(
    'refuses an OpenID Connect claim scope (%j) for a client with no registered scope: no end-user to describe',
    async (scope) => {
      const client = await admin();
      await expectRefused(
        () => grant({ scope }, basic(client.client_id, client.client_secret)),
        400,
        'invalid_scope',
      );
    },
  );

  it('refuses a scope the resource does not offer, for a client with no registered scope', async () => {
    const client = await admin();
    await expectRefused(
      () => grant({ scope: 'notes:admin' }, basic(client.client_id, client.client_secret)),
      400,
      'invalid_scope',
    );
  });

  it.each([
    ['an unknown resource', ['https://elsewhere.example/mcp']],
    ['a resource with a fragment', [`${RESOURCE}#f`]],
  ])('refuses %s with invalid_target', async (_why, resources) => {
    const client = await admin();
    await expectRefused(
      () => grant({ resource: resources[0] }, basic(client.client_id, client.client_secret)),
      400,
      'invalid_target',
    );
  });
});

describe('the client credentials grant without EXTENSIONS', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer();
  });
  afterAll(async () => {
    await as?.close();
  });

  it('is not offered: absent from grant_types_supported, unsupported_grant_type at /token', async () => {
    const metadata = (await (
      await fetch(`${as.app.url}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, string[]>;
    expect(metadata['grant_types_supported']).toEqual(['authorization_code', 'refresh_token']);
    const client = await as.createClient({
      confidential: 'client_secret_basic',
      grantTypes: ['client_credentials'],
    });
    const before = await as.counts();
    const response = await tokenRequest(
      as,
      { grant_type: 'client_credentials', resource: RESOURCE },
      basic(client.clientId, client.clientSecret!),
    );
    expect({ status: response.status, error: response.body['error'] }).toEqual({
      status: 400,
      error: 'unsupported_grant_type',
    });
    expect(await as.counts()).toEqual(before);
  });
});
