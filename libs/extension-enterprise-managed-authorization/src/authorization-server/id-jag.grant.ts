// Rules kept: MCP SEP-990 (enterprise-managed authorization,
// https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx)
// and draft-ietf-oauth-identity-assertion-authz-grant: the ID-JAG is a JWT with `typ` `oauth-id-jag+jwt`, signed by
// an identity provider this authorization server trusts (its issuer and keys are configured), whose `aud` is this
// authorization server's issuer, whose `client_id` is the client that presents it (which authenticates, RFC 7523
// 3.1), naming the `resource` the token is for, unexpired, and used once (`jti`, RFC 7523 3 item 7). RFC 7523 2.1
// and 3.1: the assertion arrives in `assertion` with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`, and
// a refused one is `invalid_grant` (a public client is `invalid_client`; a resource other than the assertion's,
// `invalid_target`). RFC 6749 3.3: the token's scope is the requested one within the assertion's, and a request for
// none of it is `invalid_scope`. RFC 8725 3.1: asymmetric algorithms only. The draft's "Cross-Domain Use": an
// identity provider never issues access tokens for an ID-JAG it issued itself.
import type { GrantHandler, GrantSelectionRequest, JsonObject } from '@portcullis/extensions';
import { ASYMMETRIC_SIGNING_ALGORITHMS, OAuthError } from '@portcullis/protocol';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JWTVerifyGetKey,
} from 'jose';
import { ID_JAG_TYP } from '../constants.js';
import type { TrustedIdentityProvider } from './trusted-identity-providers.js';

/** The algorithms an ID-JAG may be signed with (RFC 8725 3.1: never `none`, never HMAC). */
const ALGORITHMS: readonly string[] = ASYMMETRIC_SIGNING_ALGORITHMS;
const CLOCK_SKEW_SECONDS = 30;

/**
 * The `sub` of tokens issued for a user of an identity provider: namespaced by its issuer, so that no identity
 * provider can name a local user or another provider's.
 */
export function subjectOf(idpIssuer: string, idpSubject: string): string {
  return `${idpIssuer}#${idpSubject}`;
}

/**
 * Whether a jwt-bearer request carries an ID-JAG: its `assertion`'s JOSE header says `typ` `oauth-id-jag+jwt`
 * (compared case-insensitively, with or without `application/`, RFC 7515 4.1.9). Decoded, not verified: it only
 * picks this extension's handler among those sharing the grant type, which verifies everything.
 */
export function isIdJagRequest(request: GrantSelectionRequest): boolean {
  const assertion = request.params['assertion'];
  if (!assertion) return false;
  try {
    const { typ } = decodeProtectedHeader(assertion);
    const lower = typeof typ === 'string' ? typ.toLowerCase() : '';
    return lower === ID_JAG_TYP || lower === `application/${ID_JAG_TYP}`;
  } catch {
    return false;
  }
}

/**
 * The `urn:ietf:params:oauth:grant-type:jwt-bearer` grant for ID-JAGs. Every check runs before the `jti` is recorded,
 * so a refused assertion uses nothing up; the token names the user as the identity provider does, namespaced by
 * its issuer. An ID-JAG this server issued itself (as an identity provider) is refused: the draft's "Cross-Domain
 * Use" says an identity provider must not issue access tokens for its own ID-JAGs.
 */
export function idJagGrant(trusted: readonly TrustedIdentityProvider[]): GrantHandler {
  const keySets = new Map<string, JWTVerifyGetKey>(
    trusted.map((idp) => [
      idp.issuer,
      idp.jwks
        ? createLocalJWKSet(idp.jwks as Parameters<typeof createLocalJWKSet>[0])
        : createRemoteJWKSet(new URL(idp.jwks_uri as string), {
            timeoutDuration: 2_500,
            cooldownDuration: 30_000,
          }),
    ]),
  );
  return async (request, context) => {
    if (request.client.authenticationMethod === 'none') {
      throw new OAuthError('invalid_client', 'an ID-JAG is redeemed by an authenticated client');
    }
    const assertion = request.params['assertion'];
    if (!assertion) throw new OAuthError('invalid_request', 'assertion is required');
    let typ: string | undefined;
    let alg: string | undefined;
    let claimedIssuer: unknown;
    try {
      ({ typ, alg } = decodeProtectedHeader(assertion));
      claimedIssuer = decodeJwt(assertion).iss;
    } catch {
      throw new OAuthError('invalid_grant', 'assertion is not a JWT');
    }
    if (typ !== ID_JAG_TYP) throw new OAuthError('invalid_grant', `assertion typ must be ${ID_JAG_TYP}`);
    if (!alg || !ALGORITHMS.includes(alg))
      throw new OAuthError('invalid_grant', 'assertion alg is not allowed');
    if (claimedIssuer === context.issuer) {
      throw new OAuthError('invalid_grant', 'this server does not redeem the ID-JAGs it issues');
    }
    const keys = typeof claimedIssuer === 'string' ? keySets.get(claimedIssuer) : undefined;
    if (!keys) throw new OAuthError('invalid_grant', 'assertion is not from a trusted identity provider');
    let payload;
    try {
      ({ payload } = await jwtVerify(assertion, keys, {
        algorithms: [...ALGORITHMS],
        issuer: claimedIssuer as string,
        audience: context.issuer,
        typ: ID_JAG_TYP,
        clockTolerance: CLOCK_SKEW_SECONDS,
        requiredClaims: ['exp', 'jti', 'sub', 'client_id'],
      }));
    } catch (error) {
      throw new OAuthError('invalid_grant', describe(error));
    }
    if (payload['client_id'] !== request.client.clientId) {
      throw new OAuthError('invalid_grant', 'assertion was issued for another client');
    }
    const resource = singleString(payload['resource']);
    if (!resource) throw new OAuthError('invalid_grant', 'assertion names no resource');
    if (request.resources.length > 0 && (request.resources.length > 1 || request.resources[0] !== resource)) {
      throw new OAuthError('invalid_target', 'resource differs from the one the assertion names');
    }
    // The token's scope is what was asked for within what the identity provider granted (RFC 6749 3.3: the server
    // may issue less than requested, and says so in `scope`); asking only for what was not granted is refused.
    const granted = scopesOf(payload['scope']);
    const requested = scopesOf(request.params['scope']);
    const scope =
      granted && requested
        ? requested.filter((value) => granted.includes(value))
        : (requested ?? granted ?? []);
    if (requested && scope.length === 0) {
      throw new OAuthError('invalid_scope', 'scope is outside what the assertion grants');
    }
    if (scope.includes('offline_access'))
      throw new OAuthError('invalid_scope', 'no refresh token for an ID-JAG');
    const jti = payload.jti as string;
    const expiresAt = new Date(((payload.exp as number) + CLOCK_SKEW_SECONDS) * 1000);
    if (!(await context.useOnce(claimedIssuer as string, jti, expiresAt))) {
      throw new OAuthError('invalid_grant', 'assertion was already used');
    }
    return context.issueTokens({
      subject: subjectOf(claimedIssuer as string, payload.sub as string),
      scope,
      resources: [resource],
      refreshToken: false,
    });
  };
}

function singleString(value: JsonObject[string] | unknown): string | undefined {
  if (typeof value === 'string' && value) return value;
  if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') return value[0];
  return undefined;
}

function scopesOf(value: unknown): string[] | undefined {
  if (typeof value !== 'string') return undefined;
  const scopes = value.split(' ').filter(Boolean);
  return scopes.length > 0 ? scopes : undefined;
}

/** Why jose refused an ID-JAG, naming no key. */
function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'assertion has expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `assertion ${error.claim} is not valid`;
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) {
    return 'assertion is not signed by the identity provider';
  }
  return 'assertion could not be verified';
}
