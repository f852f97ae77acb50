import argon2 from 'argon2';

/**
 * argon2id with the library's defaults (m=64 MiB, t=3, p=4), above OWASP's minimum for argon2id.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9106#section-4
 */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

/** Whether `password` matches a stored argon2 PHC string; false for anything malformed. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(stored, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the time of one verification for an unknown user, so response time does not tell which usernames exist.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword('portcullis-dummy-password');
  await verifyPassword(await dummyHash, password);
  return false;
}
