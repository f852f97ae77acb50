/**
 * Proof Key for Code Exchange, S256 only.
 *
 * Rules kept here:
 * - RFC 7636 Section 4.1: `code_verifier = 43*128unreserved`, unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~";
 *   generated from 32 octets of a cryptographically secure random source, base64url-encoded (43 characters).
 * - RFC 7636 Section 4.2: `code_challenge = BASE64URL-ENCODE(SHA256(ASCII(code_verifier)))`, no padding.
 * - OAuth 2.1 Section 4.1.1 / RFC 9700 Section 2.1.1 / MCP "Authorization Code Protection": `S256` only; `plain` is
 *   refused. Method names are case-sensitive.
 * - RFC 7636 Section 4.6: the server recomputes the challenge from the verifier and compares; the comparison here
 *   is constant-time, so a guess leaks nothing through timing.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constantTimeEqual } from './constant-time.js';

/**
 * The only code challenge method Portcullis sends or accepts.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc7636#section-4.2 RFC 7636 Section 4.2}
 */
export const PKCE_METHOD_S256 = 'S256';

const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/u;
// A SHA-256 digest is 32 octets: 43 base64url characters without padding.
const S256_CODE_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/u;

/**
 * Whether `value` is a syntactically valid `code_verifier`: 43 to 128 unreserved characters.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc7636#section-4.1 RFC 7636 Section 4.1}
 */
export function isCodeVerifier(value: unknown): value is string {
  return typeof value === 'string' && CODE_VERIFIER.test(value);
}

/**
 * Whether `value` has the shape of an S256 `code_challenge`: 43 base64url characters. An authorization server can
 * refuse a malformed challenge at the authorization endpoint instead of at redemption.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc7636#section-4.2 RFC 7636 Section 4.2}
 */
export function isS256CodeChallenge(value: unknown): value is string {
  return typeof value === 'string' && S256_CODE_CHALLENGE.test(value);
}

/**
 * A new `code_verifier`: 32 random octets from `node:crypto`, base64url-encoded (43 characters, 256 bits).
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc7636#section-4.1 RFC 7636 Section 4.1}
 */
export function generateCodeVerifier(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The S256 `code_challenge` of a verifier: base64url (no padding) of its SHA-256 digest. Throws `TypeError` for a
 * verifier that is not 43 to 128 unreserved characters, so an invalid verifier is never sent.
 *
 * @example
 * ```ts
 * codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'); // 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc7636#section-4.2 RFC 7636 Section 4.2}
 */
export function codeChallengeS256(verifier: string): string {
  if (!isCodeVerifier(verifier)) throw new TypeError('code_verifier must be 43 to 128 unreserved characters');
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * Whether `verifier` proves possession for `challenge` (RFC 7636 Section 4.6). `false` for any method other than
 * `S256` (including `plain` and `s256`), for a verifier that is not 43 to 128 unreserved characters, and for a
 * mismatch; the digests are compared in constant time.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc7636#section-4.6 RFC 7636 Section 4.6}
 * @see {@link https://www.rfc-editor.org/rfc/rfc9700#section-2.1.1 RFC 9700 Section 2.1.1}
 */
export function verifyCodeChallenge(verifier: string, challenge: string, method: string): boolean {
  if (method !== PKCE_METHOD_S256 || !isCodeVerifier(verifier) || typeof challenge !== 'string') return false;
  return constantTimeEqual(challenge, codeChallengeS256(verifier));
}
