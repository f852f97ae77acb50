// Rules kept: a `client_id` names a client ID metadata document when it is a Client Identifier URL (CIMD draft 3,
// `isClientIdMetadataUrl` of libs/metadata: https, a host, a path other than `/`, no dot segments, no fragment,
// no userinfo). In the development mode only (an authorization server on loopback: the later CIMD draft's SSRF
// section allows loopback fetches "when the authorization server itself is also running on a loopback address",
// never in production), the same URL with plain http on a loopback host (`localhost`, 127.0.0.0/8, `[::1]`) names
// one too; the connection is then held to loopback addresses by the SSRF guard.
import { isClientIdMetadataUrl, isLoopbackClientIdMetadataUrl } from '@portcullis/metadata';

/**
 * Whether the authorization server looks `clientId` up as a client ID metadata document.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-3
 */
export function namesMetadataDocument(clientId: string, allowLoopback: boolean): boolean {
  return isClientIdMetadataUrl(clientId) || (allowLoopback && isLoopbackClientIdMetadataUrl(clientId));
}
