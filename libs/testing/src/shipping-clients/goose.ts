// Goose (Block's agent, CLI and desktop; MCP client: the Rust `rmcp` crate), replayed.
//
// - Client ID metadata document `https://goose-docs.ai/oauth/client-metadata.json` (since goose 1.32.0) where the
//   server advertises metadata documents, dynamic registration through `rmcp` otherwise (client name "goose"):
//   https://github.com/block/goose/blob/main/crates/goose/src/oauth/mod.rs (`CLIENT_METADATA_URL`,
//   `build_authorization_request`). The document: client_name "goose", `none`, loopback `redirect_uris`
//   `http://127.0.0.1/oauth_callback` and `http://[::1]/oauth_callback` (published on goose-docs.ai from the goose
//   repository; no grant types listed, so `authorization_code` alone, RFC 7591 2).
// - Redirect: a loopback server on 127.0.0.1 and an ephemeral port (`GOOSE_OAUTH_CALLBACK_PORT` unset),
//   `http://127.0.0.1:<port>/oauth_callback`: same file, `oauth_flow`.
// - Scope, `resource`, PKCE and the token request as `rmcp` builds them (rmcp.ts).
import {
  rmcpAuthorizationParameters,
  rmcpRegistrationBody,
  rmcpScopeSelection,
  rmcpTokenParameters,
} from './rmcp.js';
import {
  advertisesMetadataDocuments,
  type RegistrationChoice,
  type ShippingClient,
} from './shipping-client.js';

export const GOOSE_METADATA_DOCUMENT = 'https://goose-docs.ai/oauth/client-metadata.json';

export const GOOSE_DOCUMENT = Object.freeze({
  client_id: GOOSE_METADATA_DOCUMENT,
  client_name: 'goose',
  redirect_uris: ['http://127.0.0.1/oauth_callback', 'http://[::1]/oauth_callback'],
  token_endpoint_auth_method: 'none',
});

export function goose(): ShippingClient {
  return {
    name: 'Goose',
    documents: async () => ({ [GOOSE_METADATA_DOCUMENT]: GOOSE_DOCUMENT }),
    register(discovery): RegistrationChoice {
      if (advertisesMetadataDocuments(discovery)) {
        return { kind: 'metadata-document', clientId: GOOSE_METADATA_DOCUMENT };
      }
      return {
        kind: 'dynamic',
        body: (redirectUri) => rmcpRegistrationBody('goose', redirectUri, rmcpScopeSelection(discovery)),
      };
    },
    redirect: () => ({ kind: 'loopback', host: '127.0.0.1', path: '/oauth_callback' }),
    authorizationParameters: (discovery, input) =>
      rmcpAuthorizationParameters(discovery, input, rmcpScopeSelection(discovery)),
    tokenParameters: (discovery, input) => rmcpTokenParameters(discovery, input),
    authentication: () => 'none',
  };
}
