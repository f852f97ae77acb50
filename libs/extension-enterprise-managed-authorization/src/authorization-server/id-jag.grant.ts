// Rules kept: MCP SEP-990 (enterprise-managed authorization,
// https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx)
// and draft-ietf-oauth-identity-assertion-authz-grant: the ID-JAG is a JWT with `typ` `oauth-id-jag+jwt`, signed by
// an identity provider this authorization server trusts (its issuer and keys are configured), whose `aud` is this
// authorization server's issuer, whose `client_id` is the client that presents it (which authenticates, RFC 7523
// 3.1), naming the `resource` the token is for, unexpired, and used once (`jti`, RFC 7523 3 item 7). RFC 7523 2.1
// and 3.1: the assertion arrives in `assertion` with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`, and
// a refused one is `invalid_grant` (a public client is `invalid_client`; a resource other than the assertion's,
// `invalid_target`). RFC 6749 3.3: the token's scope is the requested one within the assertion's, and a request for
// none of it is `invalid_scope`. The draft's "Cross-Domain Use": an identity provider never issues access tokens for
// an ID-JAG it issued itself. The JWT checks (RFC 8725 3.1 asymmetric algorithms, 3.11 `typ` compared as RFC 7515
// 4.1.9 says, RFC 7523 3 claims, the keys inline or at the provider's `jwks_uri` as the host fetches it) are
// `verifyJwtAssertion`'s, shared with the other assertions this server takes.
import type { GrantContext, GrantHandler, GrantSelectionRequest, JsonObject } from '@portcullis/extensions';
import {
  decodeJwtAssertion,
  OAuthError,
  verifyJwtAssertion,
  type JwtAssertionPolicy,
} from '@portcullis/protocol';
import { decodeProtectedHeader } from 'jose';
import { ID_JAG_TYP } from '../constants.js';
import type { TrustedIdentityProvider } from './trusted-identity-providers.js';

/** How refusals of an ID-JAG read and what they answer (RFC 7523 3.1). */
const ASSERTION = { parameter: 'assertion', error: 'invalid_grant' } as const;

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
  const providers = new Map(trusted.map((idp) => [idp.issuer, idp]));
  return async (request, context) => {
    if (request.client.authenticationMethod === 'none') {
      throw new OAuthError('invalid_client', 'an ID-JAG is redeemed by an authenticated client');
    }
    const assertion = request.params['assertion'];
    if (!assertion) throw new OAuthError('invalid_request', 'assertion is required');
    const claimedIssuer = decodeJwtAssertion(assertion, ASSERTION).claims.iss;
    if (claimedIssuer === context.issuer) {
      throw new OAuthError('invalid_grant', 'this server does not redeem the ID-JAGs it issues');
    }
    const idp = typeof claimedIssuer === 'string' ? providers.get(claimedIssuer) : undefined;
    if (!idp) throw new OAuthError('invalid_grant', 'assertion is not from a trusted identity provider');
    const verified = await verifyJwtAssertion(assertion, {
      ...ASSERTION,
      keys: keysOf(idp, context),
      signer: 'the identity provider',
      issuer: idp.issuer,
      audience: context.issuer,
      typ: ID_JAG_TYP,
      jti: 'required',
      requiredClaims: ['sub', 'client_id'],
    });
    const { claims } = verified;
    if (claims['client_id'] !== request.client.clientId) {
      throw new OAuthError('invalid_grant', 'assertion was issued for another client');
    }
    const resource = singleString(claims['resource']);
    if (!resource) throw new OAuthError('invalid_grant', 'assertion names no resource');
    if (request.resources.length > 0 && (request.resources.length > 1 || request.resources[0] !== resource)) {
      throw new OAuthError('invalid_target', 'resource differs from the one the assertion names');
    }
    // The token's scope is what was asked for within what the identity provider granted (RFC 6749 3.3: the server
    // may issue less than requested, and says so in `scope`); asking only for what was not granted is refused.
    const granted = scopesOf(claims['scope']);
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
    await verified.useOnce(context.useOnce, idp.issuer);
    return context.issueTokens({
      subject: subjectOf(idp.issuer, claims.sub as string),
      scope,
      resources: [resource],
      refreshToken: false,
    });
  };
}

/** An identity provider's keys: inline, or at its `jwks_uri` as the host fetches it. */
function keysOf(idp: TrustedIdentityProvider, context: GrantContext): JwtAssertionPolicy['keys'] {
  return idp.jwks ? { jwks: idp.jwks } : { jwksUri: idp.jwks_uri as string, fetchJwks: context.fetchJwks };
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
