// Rules kept: RFC 9700 4.14.2 (a rotated-out refresh token presented again is reuse), relaxed only by an operator's
// grace window (REFRESH_TOKEN_REUSE_GRACE, as Ory Hydra's rotation grace period and Keycloak's refresh token max
// reuse): within it the same client, asking for the same thing, gets the very response its first presentation got,
// never a new descendant. The response is kept sealed with a key derived from the presented refresh token itself,
// which the server stores only hashed: whoever reads the database cannot open it, and only a presenter of that
// token, with the same request (scope and proof key, bound as additional data), can.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { TokenResponse } from '@portcullis/extensions';

const INFO = 'portcullis refresh token replay v1';
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What a presentation asks for: a replay is given only to a request asking for the same. */
export interface ReplayRequest {
  /** The scopes the request gets, in the order issued. */
  readonly scopes: readonly string[];
  /** The confirmation of the request's proof of possession (`{"jkt": …}`, RFC 9449 6.1), as JSON, when it had one. */
  readonly proofKey?: string;
}

function key(presented: string, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(presented, 'utf8'), salt, INFO, 32));
}

function additionalData(request: ReplayRequest): Buffer {
  return Buffer.from(JSON.stringify([[...request.scopes].sort(), request.proofKey ?? null]), 'utf8');
}

/**
 * Seals the response a refresh token's presentation got, for a presentation of the same token with the same request
 * within the grace window.
 *
 * @see https://www.rfc-editor.org/rfc/rfc5869 (HKDF)
 */
export function sealReplay(presented: string, request: ReplayRequest, response: TokenResponse): string {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key(presented, salt), iv);
  cipher.setAAD(additionalData(request));
  const body = Buffer.concat([cipher.update(JSON.stringify(response), 'utf8'), cipher.final()]);
  return Buffer.concat([salt, iv, cipher.getAuthTag(), body]).toString('base64url');
}

/**
 * The sealed response, when `presented` is the token it was sealed for and `request` asks for the same; undefined
 * otherwise (another token, another scope or proof key, a damaged value).
 */
export function openReplay(
  presented: string,
  request: ReplayRequest,
  sealed: string,
): TokenResponse | undefined {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length <= SALT_BYTES + IV_BYTES + TAG_BYTES) return undefined;
  const salt = bytes.subarray(0, SALT_BYTES);
  const iv = bytes.subarray(SALT_BYTES, SALT_BYTES + IV_BYTES);
  const tag = bytes.subarray(SALT_BYTES + IV_BYTES, SALT_BYTES + IV_BYTES + TAG_BYTES);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key(presented, salt), iv);
    decipher.setAAD(additionalData(request));
    decipher.setAuthTag(tag);
    const body = Buffer.concat([
      decipher.update(bytes.subarray(SALT_BYTES + IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]);
    return JSON.parse(body.toString('utf8')) as TokenResponse;
  } catch {
    return undefined;
  }
}
