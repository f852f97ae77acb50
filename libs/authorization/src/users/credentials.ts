import type { User } from '@portcullis/persistence';
import { verifyAgainstDummy, verifyPassword } from './password-hasher.js';
import type { UserRepository } from './user.repository.js';

/** The longest username or password a sign-in form takes; a longer one fails without a lookup. */
export const MAX_CREDENTIAL_LENGTH = 256;

/**
 * How a user who signed in with {@link verifyCredentials} authenticated: a password (RFC 8176 `pwd`).
 *
 * @see https://www.rfc-editor.org/rfc/rfc8176#section-2
 */
export const PASSWORD_AMR: readonly string[] = Object.freeze(['pwd']);

/**
 * The user a username and password sign in, or undefined. An unknown username costs the same argon2id check as a
 * known one, so the answer's timing does not tell which usernames exist.
 */
export async function verifyCredentials(
  users: UserRepository,
  username: string,
  password: string,
): Promise<User | undefined> {
  if (username.length > MAX_CREDENTIAL_LENGTH || password.length > MAX_CREDENTIAL_LENGTH) return undefined;
  const user = username ? await users.findByUsername(username) : null;
  if (!user) return verifyAgainstDummy(password).then(() => undefined);
  return (await verifyPassword(user.passwordHash, password)) ? user : undefined;
}
