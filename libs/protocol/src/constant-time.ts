// Rules kept: RFC 6749 10.10 and RFC 6819 5.1.4.2.3, RFC 7636 4.6 and RFC 6750 5.2 ask that a secret a request
// presents (a client secret, a PKCE verifier's challenge, a bearer token, a MAC) is not compared in a way whose time
// tells how much of it was right. Both values are hashed with SHA-256 first, so the comparison always runs over 32
// bytes: its time says nothing about where they differ, nor about the length of either (node:crypto
// `timingSafeEqual` alone throws on different lengths, and a length check before it leaks the length).
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether `presented` equals `expected`, in time that does not depend on where they differ or on their lengths.
 * Strings are compared as their UTF-8 bytes, so a string and the `Uint8Array` of its UTF-8 encoding are equal.
 * Never throws for different lengths: they are simply not equal.
 *
 * @example constantTimeEqual(presentedSecret, configuredSecret) // true only for the same bytes
 * @see https://www.rfc-editor.org/rfc/rfc6819#section-5.1.4.2.3
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-10.10
 */
export function constantTimeEqual(presented: string | Uint8Array, expected: string | Uint8Array): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

function digest(value: string | Uint8Array): Buffer {
  const hash = createHash('sha256');
  if (typeof value === 'string') hash.update(value, 'utf8');
  else hash.update(value);
  return hash.digest();
}
