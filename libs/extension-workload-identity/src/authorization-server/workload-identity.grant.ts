// Rules kept: MCP SEP-1933 (workload identity federation, https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1933)
// with RFC 7523. RFC 7523 2.1: the workload's JWT arrives in `assertion` with
// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`, with no client registration and no client
// authentication (RFC 7521 4.1 makes it optional; SEP-1933: "without requiring separate client registration").
// RFC 7523 3: `iss` is an issuer the operator trusts (item 1), `sub` is present (item 2), `aud` is one of the
// issuer's configured audiences, by default this server's issuer or its token endpoint (item 3), `exp` is present and
// not passed (item 4), `nbf` not in the future (item 5), `iat` not in the future and `exp - iat` within the issuer's
// maximum lifetime (item 6), `jti` used once when present (item 7), and the signature verifies with the issuer's
// keys (item 9), an asymmetric algorithm only (RFC 8725 3.1); each refusal is `invalid_grant` (RFC 7523 3.1).
// SEP-1933 "claim-based authorization rules": the `sub` must match one of the issuer's trust rules, else
// `unauthorized_client` (the assertion is valid, but no client may use it, RFC 6749 5.2); the rule gives the token's
// `client_id` and its most scope: more requested is `invalid_scope` (RFC 6749 3.3). A client that authenticates, or
// names itself with `client_id`, must be the rule's client (`invalid_grant`: RFC 6749 5.2 "issued to another
// client"). The token's `sub` is namespaced by the issuer, and there is no refresh token (the workload presents a
// fresh JWT instead). Every check runs before the `jti` is recorded, so a refused assertion is not used up.
import type { ClientEstablishingGrantRegistration, GrantSelectionRequest } from '@portcullis/extensions';
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
import { subjectMatcher } from './subject-pattern.js';
import type { SubjectRule, TrustedWorkloadIssuer } from './trusted-workload-issuers.js';

const ALGORITHMS: readonly string[] = ASYMMETRIC_SIGNING_ALGORITHMS;
const CLOCK_SKEW_SECONDS = 30;
const DEFAULT_MAX_LIFETIME_SECONDS = 3600;

/**
 * The `sub` of tokens issued to a workload: its `sub` namespaced by its issuer, so that no issuer can name a local
 * user or another issuer's workload (the form enterprise-managed authorization gives its users).
 */
export function workloadSubject(issuer: string, subject: string): string {
  return `${issuer}#${subject}`;
}

interface Trusted {
  readonly issuer: TrustedWorkloadIssuer;
  readonly keys: JWTVerifyGetKey;
  readonly rules: readonly { readonly rule: SubjectRule; readonly matches: (sub: string) => boolean }[];
}

/**
 * The `urn:ietf:params:oauth:grant-type:jwt-bearer` grant for workload JWTs, shared with other users of the grant
 * type: it takes the assertions whose `iss` is one of `issuers` and that are not ID-JAGs (MCP SEP-990), and
 * establishes the client from the issuer's trust rules.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-3
 * @see https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1933
 */
export function workloadIdentityGrant(
  issuers: readonly TrustedWorkloadIssuer[],
): ClientEstablishingGrantRegistration {
  const trusted = new Map<string, Trusted>(
    issuers.map((issuer) => [
      issuer.issuer,
      {
        issuer,
        keys: issuer.jwks
          ? createLocalJWKSet(issuer.jwks as Parameters<typeof createLocalJWKSet>[0])
          : createRemoteJWKSet(new URL(issuer.jwks_uri as string), {
              timeoutDuration: 2_500,
              cooldownDuration: 30_000,
              cacheMaxAge: 600_000,
            }),
        rules: issuer.subjects.map((rule) => ({ rule, matches: subjectMatcher(rule.subject) })),
      },
    ]),
  );
  return {
    establishesClient: true,
    accepts: (request) => isWorkloadAssertion(request, trusted),
    handle: async (request, context) => {
      const assertion = request.params['assertion'];
      if (!assertion) throw new OAuthError('invalid_request', 'assertion is required');
      let alg: string | undefined;
      let typ: string | undefined;
      let claimedIssuer: unknown;
      try {
        ({ alg, typ } = decodeProtectedHeader(assertion));
        claimedIssuer = decodeJwt(assertion).iss;
      } catch {
        throw new OAuthError('invalid_grant', 'assertion is not a JWT');
      }
      if (isIdJagTyp(typ))
        throw new OAuthError('invalid_grant', 'assertion is an ID-JAG, not a workload JWT');
      if (!alg || !ALGORITHMS.includes(alg)) {
        throw new OAuthError('invalid_grant', 'assertion alg is not allowed');
      }
      const entry = typeof claimedIssuer === 'string' ? trusted.get(claimedIssuer) : undefined;
      if (!entry || claimedIssuer === context.issuer) {
        throw new OAuthError('invalid_grant', 'assertion is not from a trusted issuer');
      }
      const audiences = entry.issuer.audiences ?? [
        context.issuer,
        ...(context.tokenEndpoint ? [context.tokenEndpoint] : []),
      ];
      let payload;
      try {
        ({ payload } = await jwtVerify(assertion, entry.keys, {
          algorithms: [...ALGORITHMS],
          issuer: entry.issuer.issuer,
          audience: audiences,
          clockTolerance: CLOCK_SKEW_SECONDS,
          requiredClaims: ['exp', 'sub'],
        }));
      } catch (error) {
        throw new OAuthError('invalid_grant', describe(error));
      }
      const now = Math.floor(Date.now() / 1000);
      const exp = payload.exp as number;
      if (payload.iat !== undefined && payload.iat > now + CLOCK_SKEW_SECONDS) {
        throw new OAuthError('invalid_grant', 'assertion iat is in the future');
      }
      const maxLifetime = entry.issuer.max_lifetime ?? DEFAULT_MAX_LIFETIME_SECONDS;
      if (exp - (payload.iat ?? now) > maxLifetime) {
        throw new OAuthError('invalid_grant', `assertion lifetime exceeds ${maxLifetime} seconds`);
      }
      const sub = payload.sub;
      if (typeof sub !== 'string' || sub === '')
        throw new OAuthError('invalid_grant', 'assertion sub is not valid');
      if (payload.jti !== undefined && (typeof payload.jti !== 'string' || payload.jti === '')) {
        throw new OAuthError('invalid_grant', 'assertion jti is not valid');
      }

      const rule = entry.rules.find(({ matches }) => matches(sub))?.rule;
      if (!rule) {
        throw new OAuthError('unauthorized_client', 'no trust rule of the issuer covers this workload');
      }
      const namedClient = request.client?.clientId ?? request.params['client_id'];
      if (namedClient !== undefined && namedClient !== rule.client_id) {
        throw new OAuthError('invalid_grant', 'assertion was issued to another client');
      }
      const allowed = rule.scope.split(' ').filter(Boolean);
      const requested = request.params['scope']?.split(' ').filter(Boolean) ?? [];
      const beyond = requested.filter((value) => !allowed.includes(value));
      if (beyond.length > 0) {
        throw new OAuthError(
          'invalid_scope',
          `scope beyond what this workload may have: ${beyond.join(' ')}`,
        );
      }
      const scope = requested.length > 0 ? requested : allowed;

      if (entry.issuer.single_use === true) {
        if (typeof payload.jti !== 'string' || payload.jti.length === 0) {
          throw new OAuthError(
            'invalid_grant',
            'assertion needs a jti: this issuer’s assertions are single-use',
          );
        }
        if (
          !(await context.useOnce(
            entry.issuer.issuer,
            payload.jti,
            new Date((exp + CLOCK_SKEW_SECONDS) * 1000),
          ))
        ) {
          throw new OAuthError('invalid_grant', 'assertion was already used');
        }
      }
      return context.issueTokens({
        subject: workloadSubject(entry.issuer.issuer, sub),
        clientId: rule.client_id,
        scope,
        resources: request.resources,
        refreshToken: false,
      });
    },
  };
}

/** A jwt-bearer assertion from one of `trusted` that is not an ID-JAG: decoded, not verified (the handler does). */
function isWorkloadAssertion(request: GrantSelectionRequest, trusted: ReadonlyMap<string, Trusted>): boolean {
  const assertion = request.params['assertion'];
  if (!assertion) return false;
  try {
    if (isIdJagTyp(decodeProtectedHeader(assertion).typ)) return false;
    const { iss } = decodeJwt(assertion);
    return typeof iss === 'string' && trusted.has(iss);
  } catch {
    return false;
  }
}

/** RFC 7515 4.1.9: `typ` compares case-insensitively, and `application/` may be left out. */
function isIdJagTyp(typ: unknown): boolean {
  if (typeof typ !== 'string') return false;
  const lower = typ.toLowerCase();
  return lower === ID_JAG_TYP || lower === `application/${ID_JAG_TYP}`;
}

/** Why jose refused a workload JWT, naming no key. */
function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'assertion has expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `assertion ${error.claim} is not valid`;
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) {
    return 'assertion is not signed by the issuer';
  }
  // A key set that cannot be fetched fails closed, as an assertion this server cannot verify.
  return 'assertion could not be verified';
}
