import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import {
  GrantRepository,
  UserRepository,
  verifyClientSecret,
  verifyPassword,
} from '@portcullis/authorization';
import { UnitOfWork } from '@portcullis/persistence';
import { startDatabase, type TestDatabase } from '@portcullis/testing';
import { runAdmin } from '../src/admin/admin.js';
import { exportJWK, generateKeyPair } from 'jose';

describe('portcullis-admin', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await startDatabase();
  });
  afterAll(async () => {
    await database?.stop();
  });

  async function run(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(
      argv,
      {},
      { out: (text) => out.push(text), err: (text) => err.push(text) },
      { database: database.database },
    );
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('creates a confidential client whose secret is shown once and stored hashed', async () => {
    const created = await run(
      'clients',
      'create',
      '--name',
      'Backend',
      '--redirect-uri',
      'https://app.example/cb',
      '--auth',
      'client_secret_basic',
      '--json',
    );
    expect(created.code).toBe(0);
    const result = JSON.parse(created.out) as { client_id: string; client_secret: string };
    expect(result.client_id).toMatch(/^pc_/);
    const row = await database.database.prisma.client.findUniqueOrThrow({ where: { id: result.client_id } });
    expect(row.secretHash).not.toContain(result.client_secret);
    expect(verifyClientSecret(result.client_secret, row.secretHash)).toBe(true);
    expect(row.grantTypes).toEqual(['authorization_code', 'refresh_token']);

    const listed = await run('clients', 'list');
    expect(listed.out).toContain(result.client_id);
    expect((await run('clients', 'delete', result.client_id)).code).toBe(0);
    expect((await run('clients', 'delete', result.client_id)).code).toBe(1);
  });

  it('creates a private_key_jwt client from a JWK Set file or a jwks_uri, and refuses a private key', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const directory = mkdtempSync(join(tmpdir(), 'portcullis-admin-'));
    const publicFile = join(directory, 'public.jwks');
    const privateFile = join(directory, 'private.jwks');
    writeFileSync(publicFile, JSON.stringify({ keys: [await exportJWK(publicKey)] }));
    writeFileSync(privateFile, JSON.stringify({ keys: [await exportJWK(privateKey)] }));
    const base = [
      'clients',
      'create',
      '--name',
      'Keyed',
      '--redirect-uri',
      'https://app.example/cb',
      '--auth',
      'private_key_jwt',
    ];

    const fromFile = await run(...base, '--jwks-file', publicFile, '--json');
    expect(fromFile.code).toBe(0);
    const created = JSON.parse(fromFile.out) as { client_id: string; client_secret?: string };
    expect(created.client_secret).toBeUndefined();
    const row = await database.database.prisma.client.findUniqueOrThrow({ where: { id: created.client_id } });
    expect(row.tokenEndpointAuthMethod).toBe('private_key_jwt');
    expect(row.secretHash).toBeNull();
    expect((row.metadata as { jwks: { keys: unknown[] } }).jwks.keys).toHaveLength(1);

    const fromUri = await run(...base, '--jwks-uri', 'https://keys.example/client.jwks', '--json');
    expect(fromUri.code).toBe(0);

    const clients = await database.database.prisma.client.count();
    for (const refused of [
      await run(...base, '--jwks-file', privateFile),
      await run(...base),
      await run(...base, '--jwks-uri', 'http://keys.example/client.jwks'),
      await run(...base, '--jwks-file', publicFile, '--jwks-uri', 'https://keys.example/client.jwks'),
    ]) {
      expect(refused.code).toBe(2);
    }
    expect(await database.database.prisma.client.count()).toBe(clients);
  });

  it('creates a resource server for a configured resource, which may introspect, and lists it as one', async () => {
    const created = await run(
      'clients',
      'create',
      '--name',
      'Notes API',
      '--resource-server',
      'HTTP://LOCALHOST:4100/mcp',
      '--json',
    );
    expect(created.code).toBe(0);
    const result = JSON.parse(created.out) as {
      client_id: string;
      client_secret: string;
      resource_server: string;
    };
    expect(result.resource_server).toBe('http://localhost:4100/mcp');
    const row = await database.database.prisma.client.findUniqueOrThrow({ where: { id: result.client_id } });
    expect(row).toMatchObject({
      resourceServer: 'http://localhost:4100/mcp',
      redirectUris: [],
      grantTypes: [],
      tokenEndpointAuthMethod: 'client_secret_basic',
    });
    expect(verifyClientSecret(result.client_secret, row.secretHash)).toBe(true);
    expect((await run('clients', 'list')).out).toContain(
      `${result.client_id}\tNotes API\tclient_secret_basic\tresource server of http://localhost:4100/mcp`,
    );
  });

  it("creates a resource server that may also exchange its users' tokens for their upstream tokens", async () => {
    const created = await run(
      'clients',
      'create',
      '--name',
      'Notes API',
      '--resource-server',
      'http://localhost:4100/mcp',
      '--grant',
      'token-exchange',
      '--json',
    );
    expect(created.code).toBe(0);
    const result = JSON.parse(created.out) as { client_id: string; grant_types: string[] };
    expect(result.grant_types).toEqual(['urn:ietf:params:oauth:grant-type:token-exchange']);
    const row = await database.database.prisma.client.findUniqueOrThrow({ where: { id: result.client_id } });
    expect(row).toMatchObject({
      resourceServer: 'http://localhost:4100/mcp',
      grantTypes: ['urn:ietf:params:oauth:grant-type:token-exchange'],
      redirectUris: [],
    });
  });

  it('names the connections a resource server may exchange for (--connections), the sign-in one by default', async () => {
    const created = await run(
      'clients',
      'create',
      '--name',
      'GitHub tools',
      '--resource-server',
      'http://localhost:4100/mcp',
      '--grant',
      'token-exchange',
      '--connections',
      'github, upstream,github',
      '--json',
    );
    expect(created.code).toBe(0);
    const result = JSON.parse(created.out) as { client_id: string; token_exchange_connections: string[] };
    expect(result.token_exchange_connections).toEqual(['github', 'upstream']);
    const row = await database.database.prisma.client.findUniqueOrThrow({ where: { id: result.client_id } });
    expect(row.metadata).toEqual({ token_exchange_connections: ['github', 'upstream'] });
  });

  it.each([
    [
      ['--resource-server', 'http://localhost:4100/mcp', '--grant', 'client_credentials'],
      "a resource server's only grant is --grant token-exchange",
    ],
    [
      ['--resource-server', 'https://elsewhere.example/mcp'],
      'is not a resource this server issues tokens for',
    ],
    [['--resource-server', 'https://x.example/mcp#f'], 'is not a resource URI'],
    [
      ['--resource-server', 'http://localhost:4100/mcp', '--connections', 'github'],
      'it needs --grant token-exchange',
    ],
    [
      [
        '--resource-server',
        'http://localhost:4100/mcp',
        '--grant',
        'token-exchange',
        '--connections',
        'Git Hub',
      ],
      'must be connection names',
    ],
    [['--resource-server', 'http://localhost:4100/mcp', '--auth', 'none'], 'a resource server authenticates'],
    [
      ['--resource-server', 'http://localhost:4100/mcp', '--redirect-uri', 'https://app.example/cb'],
      'takes no --redirect-uri',
    ],
  ])('refuses a resource server %j, writing nothing', async (args, message) => {
    const before = await database.database.prisma.client.count();
    const refused = await run('clients', 'create', '--name', 'Bad', ...args);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(message);
    expect(await database.database.prisma.client.count()).toBe(before);
  });

  it('names the variable when the configured database cannot be used', async () => {
    const err: string[] = [];
    const code = await runAdmin(
      ['clients', 'list'],
      { DATABASE_URL: 'mysql://nope' },
      { out: () => undefined, err: (t) => err.push(t) },
    );
    expect(code).toBe(1);
    expect(err.join('')).toContain('DATABASE_URL must be a postgresql://');
  });

  it('refuses an unsafe redirect URI and an unknown command with usage', async () => {
    const unsafe = await run('clients', 'create', '--name', 'x', '--redirect-uri', 'http://evil.example/cb');
    expect(unsafe.code).toBe(2);
    expect(unsafe.err).toContain('http://evil.example/cb');
    const unknown = await run('keys', 'explode');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('unknown command');
  });

  it('creates a client_credentials client: confidential, a secret shown once, its scope registered', async () => {
    const created = await run(
      'clients',
      'create',
      '--name',
      'Nightly job',
      '--grant',
      'client_credentials',
      '--scope',
      'notes:read',
      '--json',
    );
    expect(created.code).toBe(0);
    // The test's configuration composes no extension: the operator is told the server must offer the grant.
    expect(created.err).toContain('EXTENSIONS=client-credentials');
    const result = JSON.parse(created.out) as { client_id: string; client_secret: string; scope: string };
    expect(result.client_id).toMatch(/^cc_/);
    expect(result.scope).toBe('notes:read');
    const row = await database.database.prisma.client.findUniqueOrThrow({ where: { id: result.client_id } });
    expect(row).toMatchObject({
      grantTypes: ['client_credentials'],
      redirectUris: [],
      responseTypes: [],
      tokenEndpointAuthMethod: 'client_secret_basic',
      scope: 'notes:read',
      metadata: { scope: 'notes:read' },
      origin: 'preregistered',
    });
    expect(row.secretHash).not.toContain(result.client_secret);
    expect(verifyClientSecret(result.client_secret, row.secretHash)).toBe(true);

    const post = await run(
      'clients',
      'create',
      '--name',
      'Post',
      '--grant',
      'client_credentials',
      '--auth',
      'client_secret_post',
      '--json',
    );
    expect(post.code).toBe(0);
    const postRow = await database.database.prisma.client.findUniqueOrThrow({
      where: { id: (JSON.parse(post.out) as { client_id: string }).client_id },
    });
    expect(postRow).toMatchObject({
      tokenEndpointAuthMethod: 'client_secret_post',
      scope: null,
      metadata: {},
    });
  });

  it('creates an enterprise client for the jwt-bearer grant (ID-JAGs), confidential with a secret', async () => {
    const created = await run(
      'clients',
      'create',
      '--name',
      'Enterprise agent',
      '--grant',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
      '--json',
    );
    expect(created.code).toBe(0);
    const result = JSON.parse(created.out) as { client_id: string; client_secret: string };
    const row = await database.database.prisma.client.findUniqueOrThrow({ where: { id: result.client_id } });
    expect(row).toMatchObject({
      grantTypes: ['urn:ietf:params:oauth:grant-type:jwt-bearer'],
      redirectUris: [],
      tokenEndpointAuthMethod: 'client_secret_basic',
      origin: 'preregistered',
    });
    expect(verifyClientSecret(result.client_secret, row.secretHash)).toBe(true);
    expect(created.err).toContain('EXTENSIONS=enterprise-managed-authorization');
  });

  it.each([
    [
      ['--grant', 'password'],
      '--grant must be client_credentials or urn:ietf:params:oauth:grant-type:jwt-bearer',
    ],
    [['--grant', 'client_credentials', '--auth', 'none'], 'confidential'],
    [['--grant', 'client_credentials', '--redirect-uri', 'https://app.example/cb'], 'no --redirect-uri'],
    [['--grant', 'client_credentials', '--scope', 'notes:admin'], '--scope notes:admin'],
    [['--grant', 'client_credentials', '--scope', 'notes:read  notes:write'], '--scope'],
    [['--grant', 'client_credentials', '--client-id', randomUUID()], 'user id'],
  ])('refuses a client_credentials client %j, writing nothing', async (args, message) => {
    const before = await database.database.prisma.client.count();
    const refused = await run('clients', 'create', '--name', 'Bad', ...args);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(message);
    expect(await database.database.prisma.client.count()).toBe(before);
  });

  it('creates a user with a generated password shown once', async () => {
    const created = await run('users', 'create', 'alice', '--json');
    const result = JSON.parse(created.out) as { username: string; password: string };
    expect(result.password.length).toBeGreaterThanOrEqual(16);
    expect((await run('users', 'create', 'alice')).code).toBe(1);
    expect((await run('users', 'list')).out).toContain('alice');
  });
});

describe('portcullis-admin users and keys', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    // As the command's main.ts does: the key service's log lines would go to stdout.
    Logger.overrideLogger(false);
    database = await startDatabase();
  });
  afterAll(async () => {
    await database?.stop();
  });

  async function run(env: Record<string, string>, ...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(
      argv,
      env,
      { out: (text) => out.push(text), err: (text) => err.push(text) },
      {
        database: database.database,
      },
    );
    return { code, out: out.join('\n'), err: err.join('\n') };
  }
  const prisma = () => database.database.prisma;

  /** A user with a login session, a grant with a live refresh token and access token, and a consent. */
  async function signedInUser(username: string) {
    const user = await new UserRepository(prisma()).create(username, 'old password');
    await prisma().loginSession.create({
      data: {
        id: randomUUID(),
        userId: user.id,
        csrfSecret: 'x',
        authenticatedAt: new Date(),
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    const grants = new GrantRepository(new UnitOfWork(prisma()));
    const grantId = randomUUID();
    await prisma().authorizationGrant.create({
      data: {
        id: grantId,
        clientId: 'c',
        userId: user.id,
        resource: 'http://localhost:4100/mcp',
        scopes: ['notes:read'],
        offlineAccess: true,
        authTime: new Date(),
        absoluteExpiresAt: new Date(Date.now() + 86_400_000),
      },
    });
    await grants.createRefreshToken(grantId, ['notes:read'], new Date(Date.now() + 86_400_000));
    await grants.recordAccessToken({
      jti: randomUUID(),
      grantId,
      clientId: 'c',
      subject: user.id,
      audience: 'http://localhost:4100/mcp',
      scopes: ['notes:read'],
      expiresAt: new Date(Date.now() + 300_000),
    });
    await prisma().consent.create({
      data: { userId: user.id, clientId: 'c', resource: 'http://localhost:4100/mcp', scopes: ['notes:read'] },
    });
    return { user, grantId };
  }

  it('deletes a user: signed out, every grant and its tokens revoked, consents forgotten', async () => {
    const { user, grantId } = await signedInUser('bob');
    const deleted = await run({}, 'users', 'delete', 'bob', '--json');
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.out)).toEqual({ deleted: 'bob', id: user.id, revoked_grants: 1 });
    expect(await prisma().user.findUnique({ where: { id: user.id } })).toBeNull();
    expect(await prisma().loginSession.count({ where: { userId: user.id, revokedAt: null } })).toBe(0);
    expect(
      (await prisma().authorizationGrant.findUniqueOrThrow({ where: { id: grantId } })).revokedAt,
    ).not.toBeNull();
    expect(await prisma().refreshToken.count({ where: { grantId, consumedAt: null } })).toBe(0);
    expect(await prisma().accessToken.count({ where: { grantId, revokedAt: null } })).toBe(0);
    expect(await prisma().consent.count({ where: { userId: user.id } })).toBe(0);
    expect((await run({}, 'users', 'delete', 'bob')).code).toBe(1);
    expect((await run({}, 'users', 'delete')).code).toBe(2);
  });

  it("deletes a proxy user's upstream identities and the vault's tokens with the user, and nobody else's", async () => {
    const { user } = await signedInUser('dora');
    const { user: other } = await signedInUser('erik');
    for (const owner of [user, other]) {
      await prisma().upstreamIdentity.create({
        data: {
          provider: 'github',
          issuer: 'https://api.github.com',
          subject: owner.username,
          userId: owner.id,
          lastSignInAt: new Date(),
        },
      });
      await prisma().upstreamToken.create({
        data: {
          userId: owner.id,
          connection: 'upstream',
          issuer: 'https://api.github.com',
          accessToken: 'v1.sealed',
          scopes: [],
        },
      });
    }
    expect((await run({}, 'users', 'delete', 'dora')).code).toBe(0);
    expect(await prisma().upstreamIdentity.count({ where: { userId: user.id } })).toBe(0);
    expect(await prisma().upstreamToken.count({ where: { userId: user.id } })).toBe(0);
    expect(await prisma().upstreamIdentity.count({ where: { userId: other.id } })).toBe(1);
    expect(await prisma().upstreamToken.count({ where: { userId: other.id } })).toBe(1);
  });

  it('sets a password, given or generated and shown once, and signs the user out everywhere', async () => {
    const { user } = await signedInUser('carol');
    const given = await run({}, 'users', 'set-password', 'carol', '--password', 'new password');
    expect(given.code).toBe(0);
    expect(given.out).not.toContain('new password');
    let row = await prisma().user.findUniqueOrThrow({ where: { id: user.id } });
    expect(await verifyPassword(row.passwordHash, 'new password')).toBe(true);
    expect(await verifyPassword(row.passwordHash, 'old password')).toBe(false);
    expect(await prisma().loginSession.count({ where: { userId: user.id, revokedAt: null } })).toBe(0);

    const generated = JSON.parse((await run({}, 'users', 'set-password', 'carol', '--json')).out) as {
      password: string;
    };
    row = await prisma().user.findUniqueOrThrow({ where: { id: user.id } });
    expect(await verifyPassword(row.passwordHash, generated.password)).toBe(true);
    expect((await run({}, 'users', 'set-password', 'nobody')).code).toBe(1);
  });

  it('stages a rotated key, says when it signs, and lists each key with when it signs and leaves jwks_uri', async () => {
    const env = { ACCESS_TOKEN_TTL: '600', ID_TOKEN_TTL: '300', SIGNING_KEY_RELOAD_INTERVAL: '30' };
    expect((await run(env, 'keys', 'list')).out).toContain('no signing keys');
    // The first key signs at once: no resource server can hold a key set without it.
    const first = JSON.parse((await run(env, 'keys', 'rotate', '--json')).out) as {
      kid: string;
      immediate: boolean;
      retired: unknown[];
    };
    expect(first).toMatchObject({ immediate: true, retired: [] });

    const rotatedAt = Date.now();
    const second = await run(env, 'keys', 'rotate');
    expect(second.code).toBe(0);
    // Default delay: the key set's max-age (300 s) + one reload interval (30 s) + resource servers' cooldown (30 s).
    const announced = /^new signing key (\S+), published now; it signs from (\S+) \(in 360 s\)/.exec(
      second.out,
    );
    expect(announced).not.toBeNull();
    expect(Date.parse(announced![2]!) - rotatedAt).toBeGreaterThanOrEqual(359_000);
    // It says which delay it used, computed from its own environment (which must be the server's).
    expect(second.out).toContain(
      'activation delay 360 s: JWKS_MAX_AGE 300 + SIGNING_KEY_RELOAD_INTERVAL 30 + RESOURCE_SERVER_REFETCH_COOLDOWN 30',
    );
    expect(second.out).toContain(`${first.kid} signs until ${announced![2]}, published until`);

    const listed = JSON.parse((await run(env, 'keys', 'list', '--json')).out) as Record<string, unknown>[];
    expect(listed.map((key) => key['status'])).toEqual(['staged', 'signing']);
    const [staged, signing] = listed as [Record<string, string>, Record<string, string>];
    expect(staged['kid']).toBe(announced![1]);
    expect(staged['activates_at']).toBe(announced![2]);
    // The signing key stops at the staged key's activation, and is published for the longest token lifetime plus
    // one reload interval after that.
    expect(signing['retired_at']).toBe(staged['activates_at']);
    expect(Date.parse(signing['published_until']!) - Date.parse(signing['retired_at']!)).toBe(630_000);
    expect((await run(env, 'keys', 'list')).out).toMatch(/staged, signs from .*\n.*signing until .*UNSEALED/);

    // An emergency rotation replaces both: the staged key never signs.
    const now = JSON.parse((await run(env, 'keys', 'rotate', '--now', '--json')).out) as {
      immediate: boolean;
    };
    expect(now.immediate).toBe(true);
    const after = JSON.parse((await run(env, 'keys', 'list', '--json')).out) as Record<string, unknown>[];
    expect(after.map((key) => key['status'])).toEqual(['signing', 'retired', 'retired']);

    const explicit = await run({ ...env, SIGNING_KEY_ACTIVATION_DELAY: '400' }, 'keys', 'rotate');
    expect(explicit.out).toMatch(/\(in 400 s\)/);
    expect(explicit.out).toContain('activation delay 400 s: SIGNING_KEY_ACTIVATION_DELAY');
  });

  it('takes a key ID that starts with "-" (a base64url thumbprint may) as the key, never as options', async () => {
    // Unsealed, as the keys of the tests before: the next test seals its own.
    const env = {};
    const rotated = JSON.parse((await run(env, 'keys', 'rotate', '--json')).out) as { kid: string };
    const before = await prisma().signingKey.count();
    for (const kid of ['-dash-kid', '-h2', '-_x']) {
      const refused = await run(env, 'keys', 'withdraw', kid);
      expect(refused).toMatchObject({ code: 1, err: `portcullis-admin: no signing key ${kid}` });
    }
    // The signing key is refused for what it is (it signs), whatever its first character.
    const signing = await run(env, 'keys', 'withdraw', rotated.kid);
    expect(signing.code).toBe(1);
    expect(signing.err).toContain('signs now or is staged');
    expect(await prisma().signingKey.count()).toBe(before);
    // `-h` alone is still the help.
    expect((await run(env, '-h')).code).toBe(0);
  });

  it('refuses to rotate with a KEY_ENCRYPTION_KEY that cannot open the current key, changing nothing', async () => {
    const sealing = { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    expect((await run(sealing, 'keys', 'rotate')).code).toBe(0);
    const count = await prisma().signingKey.count();
    const wrong = await run({ KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') }, 'keys', 'rotate');
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('cannot be decrypted with this KEY_ENCRYPTION_KEY');
    const missing = await run({}, 'keys', 'rotate');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('KEY_ENCRYPTION_KEY is not set');
    expect(await prisma().signingKey.count()).toBe(count);
    expect((await run(sealing, 'keys', 'rotate')).code).toBe(0);
  });

  it('revokes the grants of a deleted client', async () => {
    const created = JSON.parse(
      (await run({}, 'clients', 'create', '--name', 'x', '--redirect-uri', 'http://127.0.0.1/cb', '--json'))
        .out,
    ) as { client_id: string };
    const grantId = randomUUID();
    await prisma().authorizationGrant.create({
      data: {
        id: grantId,
        clientId: created.client_id,
        userId: randomUUID(),
        resource: 'http://localhost:4100/mcp',
        scopes: [],
        authTime: new Date(),
        absoluteExpiresAt: new Date(Date.now() + 86_400_000),
      },
    });
    const deleted = JSON.parse((await run({}, 'clients', 'delete', created.client_id, '--json')).out) as {
      revoked_grants: number;
    };
    expect(deleted.revoked_grants).toBe(1);
    expect(
      (await prisma().authorizationGrant.findUniqueOrThrow({ where: { id: grantId } })).revokedAt,
    ).not.toBeNull();
  });
});
