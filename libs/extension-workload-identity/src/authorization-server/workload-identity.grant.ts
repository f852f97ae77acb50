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
// fresh JWT instead). Every check runs before the `jti` is recorded, so a refused assertion is not used up. The JWT
// checks are `verifyJwtAssertion`'s (shared with the other assertions this server takes); keys at a `jwks_uri` come
// from the host (`GrantContext.fetchJwks`: its SSRF guard, limits and cache).
import type {
  ClientEstablishingGrantRegistration,
  GrantContext,
  GrantSelectionRequest,
} from '@portcullis/extensions';
import {
  decodeJwtAssertion,
  OAuthError,
  verifyJwtAssertion,
  type JwtAssertionPolicy,
} from '@portcullis/protocol';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { ID_JAG_TYP } from '../constants.js';
import { subjectMatcher } from './subject-pattern.js';
import type { SubjectRule, TrustedWorkloadIssuer } from './trusted-workload-issuers.js';

const DEFAULT_MAX_LIFETIME_SECONDS = 3600;
/** How refusals of a workload JWT read and what they answer (RFC 7523 3.1). */
const ASSERTION = { parameter: 'assertion', error: 'invalid_grant' } as const;

/**
 * The `sub` of tokens issued to a workload: its `sub` namespaced by its issuer, so that no issuer can name a local
 * user or another issuer's workload (the form enterprise-managed authorization gives its users).
 */
export function workloadSubject(issuer: string, subject: string): string {
  return `${issuer}#${subject}`;
}

interface Trusted {
  readonly issuer: TrustedWorkloadIssuer;
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
      const { header, claims: unverified } = decodeJwtAssertion(assertion, ASSERTION);
      if (isIdJagTyp(header.typ))
        throw new OAuthError('invalid_grant', 'assertion is an ID-JAG, not a workload JWT');
      const claimedIssuer = unverified.iss;
      const entry = typeof claimedIssuer === 'string' ? trusted.get(claimedIssuer) : undefined;
      if (!entry || claimedIssuer === context.issuer) {
        throw new OAuthError('invalid_grant', 'assertion is not from a trusted issuer');
      }
      const verified = await verifyJwtAssertion(assertion, {
        ...ASSERTION,
        keys: keysOf(entry.issuer, context),
        signer: 'the issuer',
        issuer: entry.issuer.issuer,
        audience: entry.issuer.audiences ?? [
          context.issuer,
          ...(context.tokenEndpoint ? [context.tokenEndpoint] : []),
        ],
        requiredClaims: ['sub'],
        jti: entry.issuer.single_use === true ? 'required' : 'optional',
        maxLifetimeSeconds: entry.issuer.max_lifetime ?? DEFAULT_MAX_LIFETIME_SECONDS,
      });
      const sub = verified.claims.sub;
      if (typeof sub !== 'string' || sub === '')
        throw new OAuthError('invalid_grant', 'assertion sub is not valid');

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

      // Single-use only when the operator says so: platforms present one workload token until they rotate it.
      if (entry.issuer.single_use === true) await verified.useOnce(context.useOnce, entry.issuer.issuer);
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

/** An issuer's keys: inline, or at its `jwks_uri` as the host fetches it. */
function keysOf(issuer: TrustedWorkloadIssuer, context: GrantContext): JwtAssertionPolicy['keys'] {
  return issuer.jwks
    ? { jwks: issuer.jwks }
    : { jwksUri: issuer.jwks_uri as string, fetchJwks: context.fetchJwks };
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
