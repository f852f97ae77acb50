import { randomBytes } from 'node:crypto';
import { GrantRepository, UserRepository } from '@portcullis/authorization';
import { UnitOfWork } from '@portcullis/persistence';
import type { AdminCommand } from './admin-command.js';

/** `users create|list|delete|set-password`: the people who sign in with the local password form. */
export const USER_COMMANDS: Readonly<Record<string, AdminCommand>> = {
  async 'users create'({ prisma, values, argument, print, fail }) {
    if (!argument) return fail('users create needs a USERNAME', 2);
    const users = new UserRepository(prisma);
    if (await users.findByUsername(argument)) return fail(`user ${argument} already exists`);
    const password = values.password ?? generatedPassword();
    const user = await users.create(argument, password);
    print(`created user ${argument}${values.password ? '' : `\npassword (shown once): ${password}`}`, {
      id: user.id,
      username: argument,
      ...(values.password ? {} : { password }),
    });
    return 0;
  },

  async 'users list'({ prisma, print }) {
    const list = await new UserRepository(prisma).list();
    print(
      list.length === 0 ? 'no users' : list.map((u) => `${u.username}\t${u.id}`).join('\n'),
      list.map((u) => ({ id: u.id, username: u.username, created_at: u.createdAt })),
    );
    return 0;
  },

  /** Ends every login session, revokes every grant (refresh tokens and access tokens) and forgets consents. */
  async 'users delete'({ prisma, argument, print, fail }) {
    if (!argument) return fail('users delete needs a USERNAME', 2);
    const users = new UserRepository(prisma);
    const user = await users.findByUsername(argument);
    if (!user) return fail(`no user ${argument}`);
    const grants = await new GrantRepository(new UnitOfWork(prisma)).revokeGrantsOf({ userId: user.id });
    await users.delete(user.id);
    print(`deleted user ${argument} (${grants} grant(s) revoked)`, {
      deleted: argument,
      id: user.id,
      revoked_grants: grants,
    });
    return 0;
  },

  /**
   * Sets a new password (generated and shown once without --password) and ends the user's login sessions, so
   * whoever knew the old one is signed out; with them end the refresh families granted without offline_access.
   */
  async 'users set-password'({ prisma, values, argument, print, fail }) {
    if (!argument) return fail('users set-password needs a USERNAME', 2);
    const users = new UserRepository(prisma);
    const user = await users.findByUsername(argument);
    if (!user) return fail(`no user ${argument}`);
    const password = values.password ?? generatedPassword();
    const ended = await users.setPassword(user.id, password);
    print(
      `password of ${argument} changed; ${ended} session(s) signed out` +
        (values.password ? '' : `\npassword (shown once): ${password}`),
      { username: argument, ended_sessions: ended, ...(values.password ? {} : { password }) },
    );
    return 0;
  },
};

function generatedPassword(): string {
  return randomBytes(12).toString('base64url');
}
