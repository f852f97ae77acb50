import { readFileSync } from 'node:fs';
import { PRIVATE_JWK_MEMBERS } from '@portcullis/metadata';

/**
 * The public keys of a `private_key_jwt` client (RFC 7523 2.2, RFC 7591 2): exactly one of `--jwks-uri` (an https
 * URL, fetched when the client authenticates) or `--jwks-file` (a JWK Set of public keys); a message when they are
 * missing, doubled, unreadable or hold a private key. Nothing for the other methods, which take neither.
 */
export function clientKeys(
  auth: string,
  jwksUri: string | undefined,
  jwksFile: string | undefined,
): Record<string, unknown> | string | undefined {
  if (auth !== 'private_key_jwt') {
    return jwksUri || jwksFile ? '--jwks-uri and --jwks-file go with --auth private_key_jwt' : undefined;
  }
  if (Boolean(jwksUri) === Boolean(jwksFile))
    return 'private_key_jwt needs exactly one of --jwks-uri or --jwks-file';
  if (jwksUri) {
    const parsed = URL.canParse(jwksUri) ? new URL(jwksUri) : undefined;
    if (!parsed || parsed.protocol !== 'https:') return `--jwks-uri must be an https URL: ${jwksUri}`;
    return { jwks_uri: jwksUri };
  }
  if (!jwksFile) return 'private_key_jwt needs exactly one of --jwks-uri or --jwks-file';
  let jwks: unknown;
  try {
    jwks = JSON.parse(readFileSync(jwksFile, 'utf8'));
  } catch (error) {
    return `--jwks-file ${jwksFile}: ${(error as Error).message}`;
  }
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0)
    return `--jwks-file ${jwksFile}: not a JWK Set ({"keys": [...]})`;
  for (const key of keys as Record<string, unknown>[]) {
    if (!['RSA', 'EC', 'OKP'].includes(String(key?.['kty']))) {
      return `--jwks-file ${jwksFile}: every key must be an RSA, EC or OKP public key`;
    }
    if (PRIVATE_JWK_MEMBERS.some((member) => Object.hasOwn(key, member))) {
      return `--jwks-file ${jwksFile}: holds a private key; give the public keys only`;
    }
  }
  return { jwks: { keys } };
}
