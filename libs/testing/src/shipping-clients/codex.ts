// Codex (CLI, IDE extension and desktop app share its MCP client: the Rust `rmcp` crate), replayed.
//
// - Client ID metadata document `https://chatgpt.com/oauth/codex/client.json` (public, `native`, portless loopback
//   `redirect_uris`), with the shared `/callback` path, when the server advertises `client_id_metadata_document_
//   supported`, `none` and RFC 9207 `iss`; a per-server document otherwise (not replayed); dynamic registration when
//   there is no metadata document support: https://developers.openai.com/codex/mcp (Codex's MCP docs: "Codex will
//   use the stable document with the shared /callback path when the authorization server advertises
//   authorization_response_iss_parameter_supported"), https://github.com/stacklok/toolhive/issues/6290 (the document).
// - Dynamic registration as `rmcp` sends it: client_name "Codex", one redirect URI, `authorization_code` and
//   `refresh_token`, `none`, `code`, the scope, `application_type: native` (SEP-837):
//   https://github.com/modelcontextprotocol/rust-sdk (crates/rmcp/src/transport/auth.rs, `register_client`),
//   https://github.com/openai/codex (codex-rs/rmcp-client/src/perform_oauth_login.rs, `start_authorization` with
//   client name "Codex").
// - Redirect: a loopback server on 127.0.0.1 and an ephemeral port, `http://127.0.0.1:<port>/callback` (with a
//   callback ID suffix, `/callback/<id>` derived from the server URL, outside the stable document): same file,
//   `local_redirect_uri` and `append_callback_id_to_redirect_uri`.
// - Scope: a byte-exact, order-preserving copy of the authorization server's `scopes_supported` (not the
//   challenge's, not the resource's); no step-up on 403: https://github.com/openai/codex/issues/15643,
//   https://github.com/openai/codex/issues/20518, https://github.com/linuxfoundation/lfx-mcp/issues/126.
// - The requests as `rmcp` builds them (rmcp.ts): PKCE S256, the resource metadata's `resource` on both (missing
//   before https://github.com/openai/codex/issues/24890 was fixed), `client_id` in the token request body.
import { createHash } from 'node:crypto';
import { rmcpAuthorizationParameters, rmcpRegistrationBody, rmcpTokenParameters } from './rmcp.js';
import {
  acceptsAuthentication,
  advertisesMetadataDocuments,
  stringList,
  type Discovery,
  type RegistrationChoice,
  type ShippingClient,
} from './shipping-client.js';

export const CODEX_METADATA_DOCUMENT = 'https://chatgpt.com/oauth/codex/client.json';

/** Codex's stable document. */
export const CODEX_DOCUMENT = Object.freeze({
  client_id: CODEX_METADATA_DOCUMENT,
  client_name: 'Codex',
  client_uri: 'https://chatgpt.com/codex',
  application_type: 'native',
  redirect_uris: ['http://127.0.0.1/callback', 'http://localhost/callback'],
  token_endpoint_auth_method: 'none',
  token_endpoint_auth_methods_supported: ['none'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
});

/** Codex's callback ID: the first 9 bytes of SHA-256 of the server URL, base64url (`callback_id_from_server_url`). */
export function codexCallbackId(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.hash = '';
  return createHash('sha256').update(url.href).digest().subarray(0, 9).toString('base64url');
}

function usesStableDocument(discovery: Discovery): boolean {
  return (
    advertisesMetadataDocuments(discovery) &&
    acceptsAuthentication(discovery, 'none') &&
    discovery.serverMetadata['authorization_response_iss_parameter_supported'] === true
  );
}

/** The authorization server's `scopes_supported`, as is. */
function scopesOf(discovery: Discovery): string[] {
  return stringList(discovery.serverMetadata, 'scopes_supported');
}

export function codex(): ShippingClient {
  return {
    name: 'Codex',
    documents: async () => ({ [CODEX_METADATA_DOCUMENT]: CODEX_DOCUMENT }),
    register(discovery): RegistrationChoice {
      if (usesStableDocument(discovery))
        return { kind: 'metadata-document', clientId: CODEX_METADATA_DOCUMENT };
      if (advertisesMetadataDocuments(discovery)) {
        throw new Error("Codex's per-server metadata documents are not replayed");
      }
      return {
        kind: 'dynamic',
        body: (redirectUri) => rmcpRegistrationBody('Codex', redirectUri, scopesOf(discovery)),
      };
    },
    redirect: (discovery, choice) => ({
      kind: 'loopback',
      host: '127.0.0.1',
      path:
        choice.kind === 'metadata-document'
          ? '/callback'
          : `/callback/${codexCallbackId(discovery.resource)}`,
    }),
    authorizationParameters: (discovery, input) =>
      rmcpAuthorizationParameters(discovery, input, scopesOf(discovery)),
    tokenParameters: (discovery, input) => rmcpTokenParameters(discovery, input),
    authentication: () => 'none',
  };
}
