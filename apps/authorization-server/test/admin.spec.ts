import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { verifyClientSecret } from '@portcullis/authorization';
import { startDatabase, type TestDatabase } from '@portcullis/testing';
import { runAdmin } from '../src/admin/admin.js';

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
    const created = await run('clients', 'create', '--name', 'Backend', '--redirect-uri', 'https://app.example/cb', '--auth', 'client_secret_basic', '--json');
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

  it('names the variable when the configured database cannot be used', async () => {
    const err: string[] = [];
    const code = await runAdmin(['clients', 'list'], { DATABASE_URL: 'mysql://nope' }, { out: () => undefined, err: (t) => err.push(t) });
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

  it('creates a user with a generated password shown once', async () => {
    const created = await run('users', 'create', 'alice', '--json');
    const result = JSON.parse(created.out) as { username: string; password: string };
    expect(result.password.length).toBeGreaterThanOrEqual(16);
    expect((await run('users', 'create', 'alice')).code).toBe(1);
    expect((await run('users', 'list')).out).toContain('alice');
  });
});
