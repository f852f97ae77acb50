// Rules kept: RFC 7517 5 (a JWK Set is a JSON object whose `keys` member is an array of JWKs) and 4.1 (`kty`); RFC
// 8725 3.1 and 3.2 (an assertion is verified with an asymmetric key: an `oct` key is a shared secret, never a
// party's public key) and RFC 7518 6.2.2.1 / 6.3.2.1 / RFC 8037 2 (a member `d` makes a JWK a private key, which a
// published key set must not hold and this server must not use). Unusable members are dropped, not fatal: a set
// may carry encryption or future key types beside its signing keys.
import type { JSONWebKeySet } from 'jose';

/** Key types that sign with an asymmetric algorithm (RFC 7518 6.1, RFC 8037 2). */
const ASYMMETRIC_KEY_TYPES: ReadonlySet<string> = new Set(['RSA', 'EC', 'OKP']);

/**
 * The asymmetric public keys of a JWK Set: its `keys` members whose `kty` is `RSA`, `EC` or `OKP` and that have no
 * private member `d`, in their order. `undefined` when `value` is not a JWK Set or holds no such key. Never throws.
 *
 * @example publicJwkSet({ keys: [{ kty: 'oct', k: '…' }, { kty: 'EC', crv: 'P-256', x: '…', y: '…' }] })
 * // { keys: [{ kty: 'EC', crv: 'P-256', x: '…', y: '…' }] }
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-5
 * @see https://www.rfc-editor.org/rfc/rfc8725#section-3.1
 */
export function publicJwkSet(value: unknown): JSONWebKeySet | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys: unknown = (value as { keys?: unknown }).keys;
  if (!Array.isArray(keys)) return undefined;
  const usable = keys.filter(
    (key: unknown): key is JSONWebKeySet['keys'][number] =>
      typeof key === 'object' &&
      key !== null &&
      !Array.isArray(key) &&
      ASYMMETRIC_KEY_TYPES.has((key as { kty?: unknown }).kty as string) &&
      !Object.hasOwn(key, 'd'),
  );
  return usable.length > 0 ? { keys: usable } : undefined;
}
