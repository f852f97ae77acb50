// Rules kept, for every JWT a server receives as an assertion (RFC 7521 4: a client assertion, RFC 7523 2.2; or an
// authorization grant, RFC 7523 2.1: an ID-JAG, a workload's JWT):
// - RFC 8725 3.1 and 3.2: the algorithm is one of a fixed list of asymmetric ones, chosen by the verifier, never
//   `none` and never an HMAC (whose secret could be taken to be a public key); checked before any key is fetched.
// - RFC 8725 3.11: an expected explicit `typ` compares as RFC 7515 4.1.9 says (case-insensitively, `application/`
//   optional).
// - RFC 7523 3: `iss` is the expected issuer (item 1), `sub` present and, when expected, equal (item 2), `aud` one of
//   the verifier's values (item 3), `exp` present and not passed (item 4), `nbf` not in the future (item 5), `iat`
//   not in the future and `exp - iat` within the verifier's maximum (item 6), `jti` used once where the verifier
//   requires it (item 7), and the signature verifies with a key of the signer (item 9). Every clock comparison
//   allows the same 30 seconds of skew (our choice).
// - RFC 7523 3.1 and 3.2: a refused grant is `invalid_grant`, a refused client assertion `invalid_client`; the
//   description names the claim at fault, never a key.
// - RFC 7517 5: keys come from a JWK Set, inline or fetched from a `jwks_uri` by the caller's fetcher (which applies
//   its network policy); only asymmetric public keys are used, and a key set that cannot be had fails closed.
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
  type ProtectedHeaderParameters,
} from 'jose';
import { publicJwkSet } from './jwk-set.js';
import { ASYMMETRIC_SIGNING_ALGORITHMS } from './jws-algorithms.js';
import { OAuthError } from './oauth-error.js';

/** The clock skew every assertion check allows, in seconds (our choice). */
export const ASSERTION_CLOCK_TOLERANCE_SECONDS = 30;

/** The longest `jti` accepted: a replay store keys on it. */
export const MAX_JTI_LENGTH = 256;

/**
 * The error a refused assertion is answered with: `invalid_grant` for an authorization grant (RFC 7523 3.1),
 * `invalid_client` for client authentication (RFC 7523 3.2).
 *
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-3.1
 */
export type JwtAssertionErrorCode = 'invalid_grant' | 'invalid_client';

/**
 * Where the signer's public keys are: an inline JWK Set, or a `jwks_uri` whose document `fetchJwks` returns (the
 * caller's fetcher, with its network policy and cache; `kid` is the key the assertion names, for a fetcher that
 * fetches again when its cached set lacks it). A missing fetcher, a fetch that throws and a set without an
 * asymmetric public key all refuse the assertion.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-5
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2 (jwks, jwks_uri)
 */
export type JwtAssertionKeys =
  | { readonly jwks: unknown }
  | {
      readonly jwksUri: string;
      readonly fetchJwks: ((jwksUri: string, kid?: string) => Promise<unknown>) | undefined;
    };

/**
 * What an assertion must be. Descriptions of refusals read `<parameter> <problem>`, e.g.
 * `client_assertion has expired`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-3
 */
export interface JwtAssertionPolicy {
  /** The request parameter the assertion came in (`assertion`, `client_assertion`), naming it in descriptions. */
  readonly parameter: string;
  readonly error: JwtAssertionErrorCode;
  readonly keys: JwtAssertionKeys;
  /** Who signs, for "… is not signed by <signer>" (`the identity provider`, `a key of this client`). */
  readonly signer: string;
  /** The exact `iss` (RFC 7523 3 item 1). */
  readonly issuer: string;
  /** The acceptable `aud` values, one of which the assertion must carry (RFC 7523 3 item 3). */
  readonly audience: string | readonly string[];
  /** The exact `sub`, when the verifier knows it (a client assertion's is the client ID, RFC 7523 3 item 2). */
  readonly subject?: string;
  /** The explicit `typ` the JOSE header must carry (RFC 8725 3.11). */
  readonly typ?: string;
  /** Claims that must be present besides `iss`, `aud` and `exp` (and `sub` when `subject` is given). */
  readonly requiredClaims?: readonly string[];
  /** Whether the assertion must carry a `jti` (for replay protection). Default: optional, checked when present. */
  readonly jti?: 'required' | 'optional';
  /** The longest `exp - iat` (or `exp - now` without `iat`) accepted, in seconds (RFC 7523 3 item 6). */
  readonly maxLifetimeSeconds?: number;
  /** The furthest in the future `exp` may be, in seconds from now. */
  readonly maxExpiresInSeconds?: number;
  /** Default {@link ASYMMETRIC_SIGNING_ALGORITHMS}; only asymmetric algorithms belong here. */
  readonly algorithms?: readonly string[];
}

/** Records a `jti` as used until `expiresAt` under `namespace` (the issuer); true only the first time. */
export type RecordJwtId = (namespace: string, jti: string, expiresAt: Date) => Promise<boolean>;

/**
 * An assertion that passed every check of its policy. Its `jti` is not recorded yet: call {@link useOnce} after the
 * caller's own checks, so a refused request uses nothing up.
 */
export interface VerifiedJwtAssertion {
  readonly header: ProtectedHeaderParameters;
  readonly claims: JWTPayload & { readonly iss: string; readonly exp: number };
  /** `exp` plus the clock skew: until when a replay store must remember the `jti`. */
  readonly expiresAt: Date;
  /**
   * Records the `jti` through `record` under `namespace`; throws the policy's error when there is no `jti` or it
   * was already used.
   *
   * @see https://www.rfc-editor.org/rfc/rfc7523#section-3 (item 7)
   */
  useOnce(record: RecordJwtId, namespace: string): Promise<void>;
}

/**
 * An assertion's JOSE header and claims, decoded and not verified: for choosing its keys (its `iss`) before
 * {@link verifyJwtAssertion}. Throws the policy's error when it is not a compact JWT.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7519#section-7.2
 */
export function decodeJwtAssertion(
  assertion: string,
  policy: Pick<JwtAssertionPolicy, 'parameter' | 'error'>,
): { readonly header: ProtectedHeaderParameters; readonly claims: JWTPayload } {
  try {
    return { header: decodeProtectedHeader(assertion), claims: decodeJwt(assertion) };
  } catch {
    throw new OAuthError(policy.error, `${policy.parameter} is not a JWT`);
  }
}

/**
 * Verifies a JWT assertion against `policy` (algorithm, signature, `typ`, `iss`, `sub`, `aud`, `exp`, `nbf`,
 * `iat`, lifetime, `jti` form), throwing an {@link OAuthError} of `policy.error` for the first check that fails.
 * Nothing is recorded: see {@link VerifiedJwtAssertion.useOnce}.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-3
 * @see https://www.rfc-editor.org/rfc/rfc8725#section-3.1
 */
export async function verifyJwtAssertion(
  assertion: string,
  policy: JwtAssertionPolicy,
): Promise<VerifiedJwtAssertion> {
  const refuse = (problem: string, cause?: unknown): OAuthError =>
    new OAuthError(
      policy.error,
      `${policy.parameter} ${problem}`,
      cause === undefined ? undefined : { cause },
    );
  const algorithms = policy.algorithms ?? ASYMMETRIC_SIGNING_ALGORITHMS;
  const { header } = decodeJwtAssertion(assertion, policy);
  if (typeof header.alg !== 'string' || !algorithms.includes(header.alg)) {
    throw refuse(`must be signed with one of ${algorithms.join(', ')}`);
  }
  const required = ['exp', ...(policy.jti === 'required' ? ['jti'] : []), ...(policy.requiredClaims ?? [])];
  const options: JWTVerifyOptions = {
    algorithms: [...algorithms],
    issuer: policy.issuer,
    audience: typeof policy.audience === 'string' ? policy.audience : [...policy.audience],
    clockTolerance: ASSERTION_CLOCK_TOLERANCE_SECONDS,
    requiredClaims: [...new Set(required)],
    ...(policy.subject === undefined ? {} : { subject: policy.subject }),
    ...(policy.typ === undefined ? {} : { typ: policy.typ }),
  };
  let claims: JWTPayload;
  try {
    claims = await verifyWithAnyKey(assertion, keySet(policy.keys), options);
  } catch (error) {
    throw refuse(describe(error, policy), error);
  }

  const now = Math.floor(Date.now() / 1000);
  const exp = claims.exp as number;
  if (claims.iat !== undefined && claims.iat > now + ASSERTION_CLOCK_TOLERANCE_SECONDS) {
    throw refuse('iat is in the future');
  }
  if (policy.maxLifetimeSeconds !== undefined && exp - (claims.iat ?? now) > policy.maxLifetimeSeconds) {
    throw refuse(`lifetime exceeds ${policy.maxLifetimeSeconds} seconds`);
  }
  if (
    policy.maxExpiresInSeconds !== undefined &&
    exp > now + policy.maxExpiresInSeconds + ASSERTION_CLOCK_TOLERANCE_SECONDS
  ) {
    throw refuse(`must expire within ${policy.maxExpiresInSeconds} seconds`);
  }
  const { jti } = claims;
  if (jti !== undefined && (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH)) {
    throw refuse(`jti must be a string of 1 to ${MAX_JTI_LENGTH} characters`);
  }
  const expiresAt = new Date((exp + ASSERTION_CLOCK_TOLERANCE_SECONDS) * 1000);
  return {
    header,
    claims: claims as VerifiedJwtAssertion['claims'],
    expiresAt,
    async useOnce(record, namespace) {
      if (typeof jti !== 'string') throw refuse('needs a jti');
      if (!(await record(namespace, jti, expiresAt))) throw refuse('was already used');
    },
  };
}

/**
 * `jwtVerify`, trying each candidate when several keys of the set match the header (no `kid`, several keys of the
 * algorithm's type: jose leaves the choice to the caller).
 */
async function verifyWithAnyKey(
  assertion: string,
  keys: JWTVerifyGetKey,
  options: JWTVerifyOptions,
): Promise<JWTPayload> {
  try {
    return (await jwtVerify(assertion, keys, options)).payload;
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
    for await (const key of error) {
      try {
        return (await jwtVerify(assertion, key, options)).payload;
      } catch (attempt) {
        if (!(attempt instanceof errors.JWSSignatureVerificationFailed)) throw attempt;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

/** Imported key sets by JWK Set object: a fetcher that returns its cached object gets its imported keys too. */
const imported = new WeakMap<object, JWTVerifyGetKey>();

function localKeySet(jwks: unknown): JWTVerifyGetKey {
  const cached = typeof jwks === 'object' && jwks !== null ? imported.get(jwks) : undefined;
  if (cached) return cached;
  const usable = publicJwkSet(jwks);
  if (!usable) throw new KeySetUnavailable('the key set holds no asymmetric public key');
  const keys = createLocalJWKSet(usable);
  imported.set(jwks as object, keys);
  return keys;
}

function keySet(keys: JwtAssertionKeys): JWTVerifyGetKey {
  if ('jwks' in keys) return (header, token) => localKeySet(keys.jwks)(header, token);
  return async (header, token) => {
    if (keys.fetchJwks === undefined) throw new KeySetUnavailable('no fetcher for a jwks_uri');
    const jwks = await keys.fetchJwks(keys.jwksUri, header.kid);
    return localKeySet(jwks)(header, token);
  };
}

/** The signer's keys could not be had: the assertion cannot be verified (fail closed). */
class KeySetUnavailable extends Error {
  override readonly name = 'KeySetUnavailable';
}

/** Why jose refused an assertion, in words that name no key. */
function describe(error: unknown, policy: JwtAssertionPolicy): string {
  if (error instanceof errors.JWTExpired) return 'has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return `has no ${error.claim}`;
    if (error.claim === 'typ' && policy.typ !== undefined) return `typ must be ${policy.typ}`;
    return `${error.claim} is not valid`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) {
    return `is not signed by ${policy.signer}`;
  }
  // An unreachable or unusable key set, a malformed claim, an unsupported key: nothing this server can verify.
  return 'could not be verified';
}
