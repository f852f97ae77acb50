import { KeyObject, sign } from 'node:crypto';
import { SignJWT, type CryptoKey, type JWTPayload } from 'jose';

/** The JOSE header of a JWT the server signs (RFC 7515 4.1). */
export interface JwtHeader {
  readonly alg: string;
  readonly kid: string;
  readonly typ: string;
}

/** The registered claims every JWT the server signs carries (RFC 7519 4.1), the others beside them. */
export interface JwtClaims extends JWTPayload {
  readonly iss: string;
  readonly sub: string;
  readonly aud: string;
  readonly iat: number;
  readonly exp: number;
}

/** Each signing key as node:crypto takes it, made once per key. */
const keyObjects = new WeakMap<CryptoKey, KeyObject>();

/** The P-256 private key of an ES256 signing key (RFC 7518 3.4); anything else is refused, as jose would. */
function es256KeyOf(key: CryptoKey): KeyObject {
  let object = keyObjects.get(key);
  if (!object) {
    object = KeyObject.from(key);
    if (
      object.type !== 'private' ||
      object.asymmetricKeyType !== 'ec' ||
      object.asymmetricKeyDetails?.namedCurve !== 'prime256v1'
    ) {
      throw new TypeError('an ES256 signing key must be a P-256 private key');
    }
    keyObjects.set(key, object);
  }
  return object;
}

/**
 * Signs a JWT as a JWS Compact Serialization: `BASE64URL(UTF8(header)) . BASE64URL(payload) . BASE64URL(signature)`
 * over the first two parts. ES256 (the server's algorithm) with an extractable key is signed by node:crypto in the
 * calling thread: ECDSA P-256 with SHA-256, the signature the 64-octet `R || S` (`ieee-p1363`), not DER. Any other
 * algorithm, or a key that is not extractable, goes through jose. The claims are written in the order given.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7515#section-7.1
 * @see https://www.rfc-editor.org/rfc/rfc7518#section-3.4
 * @see https://www.rfc-editor.org/rfc/rfc7519#section-7.1
 */
export async function signJwt(header: JwtHeader, claims: JwtClaims, key: CryptoKey): Promise<string> {
  // node:crypto takes a CryptoKey only when it is extractable (Node 24 deprecates `KeyObject.from` of one that is
  // not, DEP0204): the server's keys are (SigningKeysService); any other key goes through jose's WebCrypto.
  if (header.alg !== 'ES256' || !key.extractable) {
    return new SignJWT(claims).setProtectedHeader({ ...header }).sign(key);
  }
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = sign('sha256', Buffer.from(input, 'utf8'), {
    key: es256KeyOf(key),
    dsaEncoding: 'ieee-p1363',
  });
  return `${input}.${signature.toString('base64url')}`;
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
