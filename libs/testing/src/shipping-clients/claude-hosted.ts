// claude.ai and Claude Desktop (hosted connectors: Anthropic's backend is the OAuth client), replayed.
//
// - Redirects `https://claude.ai/api/mcp/auth_callback`, with `https://claude.com/api/mcp/auth_callback` to allow as
//   well: https://support.claude.com/en/articles/11503834-building-custom-connectors-via-remote-mcp-servers.
// - Client ID metadata document `https://claude.ai/oauth/mcp-oauth-client-metadata` (public client, `none`, the
//   claude.ai callback), used only when the server advertises `client_id_metadata_document_supported` and lists
//   `none` in `token_endpoint_auth_methods_supported`; otherwise dynamic registration, on every new connection
//   ("DCR causes Claude to register a new client on every fresh connection"):
//   https://claude.com/docs/connectors/building/authentication, https://github.com/dropseed/plain/pull/108,
//   https://github.com/anthropics/claude-ai-mcp/issues/269.
// - The registration asks for `client_secret_post`, with the claude.ai callback, and sends no `application_type`:
//   https://github.com/anthropics/claude-ai-mcp/issues/1043, https://github.com/anthropics/claude-code/issues/5826,
//   https://github.com/elmohq/elmo/pull/684 ("https callback, no type").
// - At the token endpoint a registered client authenticates with `client_secret_post` (the secret in the body):
//   https://github.com/anthropics/claude-ai-mcp/issues/667.
// - The authorization request carries PKCE S256, `state`, the discovered `scope` (the challenge's, else the
//   resource's) and `resource`; `resource` again at the token endpoint:
//   https://claude.com/docs/connectors/building/authentication, https://github.com/anthropics/claude-ai-mcp/issues/42.
import { CLAUDE_AI_CALLBACK, claudeAiRegistration } from './registrations.js';
import {
  acceptsAuthentication,
  advertisesMetadataDocuments,
  challengeScopes,
  present,
  stringList,
  type Discovery,
  type RegistrationChoice,
  type ShippingClient,
} from './shipping-client.js';

export const CLAUDE_HOSTED_METADATA_DOCUMENT = 'https://claude.ai/oauth/mcp-oauth-client-metadata';
export const CLAUDE_COM_CALLBACK = 'https://claude.com/api/mcp/auth_callback';

/** The hosted connectors' document. */
export const CLAUDE_HOSTED_DOCUMENT = Object.freeze({
  client_id: CLAUDE_HOSTED_METADATA_DOCUMENT,
  client_name: 'Claude',
  client_uri: 'https://claude.ai',
  redirect_uris: [CLAUDE_AI_CALLBACK],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

/** Whether the hosted connector would use its metadata document at this server. */
function usesMetadataDocument(discovery: Discovery): boolean {
  return advertisesMetadataDocuments(discovery) && acceptsAuthentication(discovery, 'none');
}

function scopeOf(discovery: Discovery): string | undefined {
  const scopes = challengeScopes(discovery);
  const selected = scopes.length > 0 ? scopes : stringList(discovery.resourceMetadata, 'scopes_supported');
  return selected.join(' ') || undefined;
}

/** claude.ai and Claude Desktop, whose connectors share one hosted OAuth client. */
export function claudeHosted(): ShippingClient {
  return {
    name: 'claude.ai and Claude Desktop',
    documents: async () => ({ [CLAUDE_HOSTED_METADATA_DOCUMENT]: CLAUDE_HOSTED_DOCUMENT }),
    register(discovery): RegistrationChoice {
      if (usesMetadataDocument(discovery)) {
        return { kind: 'metadata-document', clientId: CLAUDE_HOSTED_METADATA_DOCUMENT };
      }
      return {
        kind: 'dynamic',
        body: (redirectUri) => claudeAiRegistration(redirectUri),
      };
    },
    redirect: () => ({ kind: 'hosted', uri: CLAUDE_AI_CALLBACK }),
    authorizationParameters: (discovery, input) =>
      present([
        ['response_type', 'code'],
        ['client_id', input.clientId],
        ['redirect_uri', input.redirectUri],
        ['scope', scopeOf(discovery)],
        ['state', input.state],
        ['code_challenge', input.codeChallenge],
        ['code_challenge_method', 'S256'],
        ['resource', discovery.resource],
      ]),
    tokenParameters: (discovery, input) =>
      present([
        ['grant_type', 'authorization_code'],
        ['code', input.code],
        ['redirect_uri', input.redirectUri],
        ['code_verifier', input.codeVerifier],
        ['resource', discovery.resource],
      ]),
    authentication: (_discovery, choice) => (choice.kind === 'dynamic' ? 'client_secret_post' : 'none'),
  };
}
