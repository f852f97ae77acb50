import { randomBytes } from 'node:crypto';
import { GrantRepository, UserRepository, type UserProfile } from '@portcullis/authorization';
import { UnitOfWork, type User } from '@portcullis/persistence';
import { z } from 'zod';
import type { AdminCommand, AdminValues } from './admin-command.js';

/** `users create|update|list|delete|set-password`: the people who sign in with the local password form. */
export const USER_COMMANDS: Readonly<Record<string, AdminCommand>> = {
  async 'users create'({ prisma, values, argument, print, fail }) {
    if (!argument) return fail('users create needs a USERNAME', 2);
    const profile = profileOf(values);
    if (typeof profile === 'string') return fail(profile, 2);
    const users = new UserRepository(prisma);
    if (await users.findByUsername(argument)) return fail(`user ${argument} already exists`);
    const password = values.password ?? generatedPassword();
    const user = await users.create(argument, password, profile);
    print(`created user ${argument}${values.password ? '' : `\npassword (shown once): ${password}`}`, {
      id: user.id,
      username: argument,
      ...claimsOf(user),
      ...(values.password ? {} : { password }),
    });
    return 0;
  },

  /** Sets the name and email the `profile` and `email` scopes grant (OpenID Connect Core 5.4). */
  async 'users update'({ prisma, values, argument, print, fail }) {
    if (!argument) return fail('users update needs a USERNAME', 2);
    const profile = profileOf(values);
    if (typeof profile === 'string') return fail(profile, 2);
    if (Object.keys(profile).length === 0) {
      return fail('users update needs --name, --email, --email-verified or --email-unverified', 2);
    }
    const users = new UserRepository(prisma);
    const user = await users.findByUsername(argument);
    if (!user) return fail(`no user ${argument}`);
    if (profile.emailVerified && !(profile.email === undefined ? user.email : profile.email)) {
      return fail(`user ${argument} has no email address to verify`, 2);
    }
    const updated = await users.setProfile(user.id, profile);
    const claims = claimsOf(updated);
    const described = Object.entries(claims).map(([name, value]) => `${name} ${String(value)}`);
    print(`updated user ${argument}: ${described.join(', ') || 'no name, no email'}`, {
      id: updated.id,
      username: argument,
      ...claims,
    });
    return 0;
  },

  async 'users list'({ prisma, print }) {
    const list = await new UserRepository(prisma).list();
    print(
      list.length === 0
        ? 'no users'
        : list.map((u) => [u.username, u.id, ...(u.email ? [u.email] : [])].join('\t')).join('\n'),
      list.map((u) => ({ id: u.id, username: u.username, ...claimsOf(u), created_at: u.createdAt })),
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

const EmailSchema = z.email();

/**
 * The profile the options describe (`--name`, `--email`, `--email-verified`, `--email-unverified`; an empty value
 * removes the name or address, and an address that changes is unverified unless vouched for again), or why they
 * cannot be one.
 */
function profileOf(values: AdminValues): UserProfile | string {
  if (values['email-verified'] && values['email-unverified']) {
    return '--email-verified and --email-unverified contradict each other';
  }
  const email = values.email?.trim();
  if (email && !EmailSchema.safeParse(email).success) return `--email ${email} is not an email address`;
  if (values['email-verified'] && email === '') return '--email-verified needs an email address';
  const profile: { name?: string | null; email?: string | null; emailVerified?: boolean } = {};
  if (values.name !== undefined) profile.name = values.name.trim() || null;
  if (email !== undefined) {
    profile.email = email || null;
    profile.emailVerified = values['email-verified'] === true;
  } else if (values['email-verified'] || values['email-unverified']) {
    profile.emailVerified = values['email-verified'] === true;
  }
  return profile;
}

/** The user's claims as the `profile` and `email` scopes grant them, for the command's output. */
function claimsOf(user: User): Record<string, string | boolean> {
  return {
    ...(user.name ? { name: user.name } : {}),
    ...(user.email ? { email: user.email, email_verified: user.emailVerified } : {}),
  };
}

function generatedPassword(): string {
  return randomBytes(12).toString('base64url');
}
