// Rules kept: MCP SEP-990 (enterprise-managed authorization,
// https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx)
// and draft-ietf-oauth-identity-assertion-authz-grant, the identity provider's side of the token exchange:
// - RFC 8693 2.1: `grant_type` token-exchange with `subject_token` and `subject_token_type`; here
//   `requested_token_type` must be `urn:ietf:params:oauth:token-type:id-jag` (the only token this grant issues) and
//   `subject_token_type` `urn:ietf:params:oauth:token-type:id_token` (RFC 8693 2.2.2 `unsupported_token_type`
//   otherwise); `actor_token` is not used by the profile; `audience` (required) is the resource authorization
//   server's issuer and `resource` (optional) the resource server there (RFC 8707 2: an absolute URI without a
//   fragment).
// - The draft's "Processing Rules": the ID token is validated (this server issued it, it has not expired, its user
//   still exists) and its `aud` is the client that authenticates the request; the administrator's policy
//   (`ENTERPRISE_IDP_AUDIENCES`) decides which clients may act for users at which audience with which scope
//   (`invalid_target` for an audience or client outside it, `invalid_scope` for a scope outside it, RFC 8693 2.2.2).
// - The draft's "Security Considerations": confidential clients only (`invalid_client` for a public one); "Cross-
//   Domain Use": never an ID-JAG for this server itself.
// - The draft's "Cross-Domain Client ID Handling": the ID-JAG's `client_id` is the client's identifier at the
//   audience, from the policy's mapping, or its own when it is a client ID metadata document URL and the policy
//   allows those.
// - The draft's "Response" and RFC 8693 2.2.1: `issued_token_type` id-jag, the ID-JAG in `access_token`,
//   `token_type` `N_A`, `expires_in`, and `scope` (always sent: it may be less than requested); no refresh token.
import type { GrantHandler, JsonObject } from '@portcullis/extensions';
import { OAuthError } from '@portcullis/protocol';
import { ID_JAG_TOKEN_TYPE, ID_JAG_TYP, ID_TOKEN_TYPE } from '../constants.js';
import type { IdJagAudience } from './id-jag-audiences.js';

/** How long an ID-JAG is valid: minutes, as in the draft's examples (`expires_in` 300). */
export const ID_JAG_LIFETIME_SECONDS = 300;

/** ID token claims about the sign-in that the ID-JAG carries on (OpenID Connect Core 2; the draft's example). */
const CARRIED_CLAIMS = ['auth_time', 'acr', 'amr'];

/**
 * The `urn:ietf:params:oauth:grant-type:token-exchange` grant that makes this authorization server an enterprise
 * identity provider: a client exchanges the ID token it got for a user here for an ID-JAG for another
 * authorization server, as the administrator's policy allows.
 */
export function idJagIssuance(audiences: readonly IdJagAudience[]): GrantHandler {
  const policy = new Map(audiences.map((entry) => [entry.audience, entry]));
  return async (request, context) => {
    const { params, client } = request;
    if (client.authenticationMethod === 'none') {
      throw new OAuthError('invalid_client', 'ID-JAGs are issued to authenticated clients only');
    }
    if (params['requested_token_type'] !== ID_JAG_TOKEN_TYPE) {
      throw new OAuthError('invalid_request', `requested_token_type must be ${ID_JAG_TOKEN_TYPE}`);
    }
    const subjectToken = params['subject_token'];
    if (!subjectToken) throw new OAuthError('invalid_request', 'subject_token is required');
    if (params['subject_token_type'] !== ID_TOKEN_TYPE) {
      throw new OAuthError('unsupported_token_type', `subject_token_type must be ${ID_TOKEN_TYPE}`);
    }
    if (params['actor_token'] !== undefined || params['actor_token_type'] !== undefined) {
      throw new OAuthError('invalid_request', 'actor_token is not used for ID-JAGs');
    }
    const audience = params['audience'];
    if (!audience) throw new OAuthError('invalid_request', 'audience is required');
    if (audience === context.issuer) {
      throw new OAuthError('invalid_target', 'this server does not issue ID-JAGs for itself');
    }
    const entry = policy.get(audience);
    if (!entry) throw new OAuthError('invalid_target', 'no ID-JAGs are issued for this audience');
    const clientIdThere =
      entry.clients?.[client.clientId] ??
      (entry.metadata_document_clients && isMetadataDocumentUrl(client.clientId)
        ? client.clientId
        : undefined);
    if (!clientIdThere) {
      throw new OAuthError('invalid_target', 'this client may not act for users at this audience');
    }
    if (request.resources.length > 1) {
      throw new OAuthError('invalid_target', 'an ID-JAG names one resource');
    }
    const resource = request.resources[0];
    if (resource !== undefined && (!URL.canParse(resource) || resource.includes('#'))) {
      throw new OAuthError('invalid_target', 'resource must be an absolute URI without a fragment');
    }
    const allowed = entry.scope.split(' ');
    const requested = params['scope']?.split(' ').filter(Boolean);
    const scope = requested ? requested.filter((value) => allowed.includes(value)) : allowed;
    if (scope.length === 0)
      throw new OAuthError('invalid_scope', 'scope is outside what this client may have there');

    const idToken = await context.verifyIdToken(subjectToken);
    if (!idToken)
      throw new OAuthError('invalid_grant', 'subject_token is not a valid ID token of this server');
    if (
      !audienceIncludes(idToken['aud'], client.clientId) ||
      (idToken['azp'] ?? client.clientId) !== client.clientId
    ) {
      throw new OAuthError('invalid_grant', 'subject_token was issued to another client');
    }

    const carried = Object.fromEntries(
      CARRIED_CLAIMS.flatMap((claim) => (idToken[claim] === undefined ? [] : [[claim, idToken[claim]]])),
    ) as JsonObject;
    const { jwt, expiresIn } = await context.signJwt({
      typ: ID_JAG_TYP,
      claims: {
        ...carried,
        sub: idToken['sub'] as string,
        aud: audience,
        client_id: clientIdThere,
        ...(resource ? { resource } : {}),
        scope: scope.join(' '),
      },
      lifetime: ID_JAG_LIFETIME_SECONDS,
    });
    return {
      access_token: jwt,
      issued_token_type: ID_JAG_TOKEN_TYPE,
      token_type: 'N_A',
      expires_in: expiresIn,
      scope: scope.join(' '),
    };
  };
}

function audienceIncludes(aud: JsonObject[string] | undefined, clientId: string): boolean {
  return aud === clientId || (Array.isArray(aud) && aud.includes(clientId));
}

/** A client identifier that is a URL: a client ID metadata document (https, or http in development). */
function isMetadataDocumentUrl(clientId: string): boolean {
  return /^https?:\/\//.test(clientId) && URL.canParse(clientId);
}
