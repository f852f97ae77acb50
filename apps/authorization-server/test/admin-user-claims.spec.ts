// portcullis-admin sets the claims the profile and email scopes grant (OpenID Connect Core 5.4): a user's name, email
// address and whether the operator vouches for it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDatabase, type TestDatabase } from '@portcullis/testing';
import { runAdmin } from '../src/admin/admin.js';

describe('portcullis-admin users, with the claims of the profile and email scopes', () => {
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

  const row = (username: string) => database.database.prisma.user.findUniqueOrThrow({ where: { username } });

  it('creates a user with a name and a verified address', async () => {
    const created = await run(
      'users',
      'create',
      'alice',
      '--password',
      'pw',
      '--name',
      'Alice Liddell',
      '--email',
      'alice@example.com',
      '--email-verified',
      '--json',
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.out)).toMatchObject({
      username: 'alice',
      name: 'Alice Liddell',
      email: 'alice@example.com',
      email_verified: true,
    });
    expect(await row('alice')).toMatchObject({
      name: 'Alice Liddell',
      email: 'alice@example.com',
      emailVerified: true,
    });
    expect((await run('users', 'list')).out).toContain('alice@example.com');
  });

  it('creates a user without them by default, and an address is unverified unless vouched for', async () => {
    expect((await run('users', 'create', 'bob', '--password', 'pw')).code).toBe(0);
    expect(await row('bob')).toMatchObject({ name: null, email: null, emailVerified: false });
    expect((await run('users', 'update', 'bob', '--email', 'bob@example.com')).code).toBe(0);
    expect(await row('bob')).toMatchObject({ email: 'bob@example.com', emailVerified: false });
    expect((await run('users', 'update', 'bob', '--email-verified')).code).toBe(0);
    expect(await row('bob')).toMatchObject({ email: 'bob@example.com', emailVerified: true });
    // A new address is not the one vouched for.
    expect((await run('users', 'update', 'bob', '--email', 'robert@example.com')).code).toBe(0);
    expect(await row('bob')).toMatchObject({ email: 'robert@example.com', emailVerified: false });
    expect((await run('users', 'update', 'bob', '--email', '', '--name', 'Bob')).code).toBe(0);
    expect(await row('bob')).toMatchObject({ name: 'Bob', email: null, emailVerified: false });
  });

  it('refuses what cannot be a profile, changing nothing', async () => {
    const before = await database.database.prisma.user.count();
    const cases: [string[], number, string][] = [
      [['users', 'create', 'carol', '--email', 'not an address'], 2, 'is not an email address'],
      [
        ['users', 'create', 'carol', '--email', 'c@example.com', '--email-verified', '--email-unverified'],
        2,
        'contradict',
      ],
      [['users', 'update', 'alice'], 2, 'needs --name, --email'],
      [['users', 'update', 'nobody', '--name', 'N'], 1, 'no user nobody'],
      [['users', 'update', 'bob', '--email-verified'], 2, 'has no email address to verify'],
    ];
    for (const [argv, code, message] of cases) {
      const result = await run(...argv);
      expect(result.code).toBe(code);
      expect(result.err).toContain(message);
    }
    expect(await database.database.prisma.user.count()).toBe(before);
    expect(await row('alice')).toMatchObject({
      name: 'Alice Liddell',
      email: 'alice@example.com',
      emailVerified: true,
    });
  });
});
