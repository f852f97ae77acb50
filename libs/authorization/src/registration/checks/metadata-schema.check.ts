// Rules kept: RFC 7591 2 (the type of every client metadata member; `jwks_uri` and `jwks` never both; `scope` is
// RFC 6749 3.3 scope tokens; web page URLs are http(s) and never `javascript:`/`data:`), RFC 7591 5 (a
// `client_name` without bidirectional controls or zero-width characters, which would make the consent page show
// another name than the one registered), RFC 7591 3.2.2 (a bad redirect URI is `invalid_redirect_uri`, any other
// bad member `invalid_client_metadata`, with a description naming the member). The schema is libs/metadata's
// `ClientMetadataSchema`; unknown members are kept as sent.
// A registered `scope` is stored and echoed but never caps later authorizations (our choice: the MCP TypeScript SDK
// registers the scopes of its first request, and step-up must still work).
import { ClientMetadataSchema } from '@portcullis/metadata';
import { OAuthError } from '@portcullis/protocol';
import type { RegistrationCheck } from '../registration-check.js';

/**
 * Every member has the type and form RFC 7591 gives it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
export const metadataSchemaCheck: RegistrationCheck = {
  name: 'metadata-schema',
  run(context) {
    const result = ClientMetadataSchema.safeParse(context.body);
    if (result.success) {
      context.metadata = result.data;
      return;
    }
    const [issue] = result.error.issues;
    const path = issue?.path.map(String) ?? [];
    const member =
      path.length === 0 ? 'metadata' : path.map((part, i) => (i === 0 ? part : `[${part}]`)).join('');
    const code = path[0] === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata';
    throw new OAuthError(code, `${member}: ${issue?.message ?? 'invalid'}`);
  },
};
