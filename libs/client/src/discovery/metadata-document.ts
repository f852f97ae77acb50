/**
 * One well-known metadata URL fetched and read as discovery reads it, without throwing: what discovery turns into
 * its errors and what `portcullis doctor` reports URL by URL.
 *
 * Rules kept here:
 * - RFC 8414 Section 3.1 and RFC 9728 Section 3.1 name one URL each: redirects are not followed, so a 3xx is
 *   `unavailable` like a 5xx or no answer at all; a 4xx is `absent` (discovery moves on to the next URL).
 * - A 200 body is read with the size limit of `readJsonObject`; one that is not a JSON object is kept as
 *   `body: undefined`, which the document's schema then refuses.
 * - RFC 8414 Section 3.3 (`parseAuthorizationServerMetadata`): the document's `issuer` is the issuer its URL was
 *   built from, with the one equivalence `sameIssuerIdentifier` accepts (a root issuer with or without its trailing
 *   slash); URLs the schema refuses are `unsafe_endpoint` (MCP "Communication Security").
 */
import { AuthorizationServerMetadataSchema, type AuthorizationServerMetadata } from '@portcullis/metadata';
import { sameIssuerIdentifier } from '@portcullis/protocol';
import { PortcullisError } from '../errors/portcullis-error.js';
import { discardBody, getJsonDocument, readJsonObject, type FetchLike } from '../http/http.js';
import { schemaFailure } from './schema-failure.js';

/**
 * What one metadata URL answered.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.2
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3.2
 */
export type MetadataDocumentAnswer =
  | {
      readonly kind: 'document';
      /** The JSON object, or `undefined` when the body is not one (or is over the size limit). */
      readonly body: Record<string, unknown> | undefined;
      readonly headers: Headers;
    }
  /** A 4xx: nothing published here. */
  | { readonly kind: 'absent'; readonly status: number }
  /** No answer (`cause`), a 5xx, or a redirect (`status`). */
  | { readonly kind: 'unavailable'; readonly status?: number; readonly cause?: unknown };

/**
 * GETs one metadata URL and classifies the answer; never throws.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.1
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3.1
 */
export async function fetchMetadataDocument(
  fetchFn: FetchLike,
  url: string,
): Promise<MetadataDocumentAnswer> {
  let response: Response;
  try {
    response = await getJsonDocument(fetchFn, url);
  } catch (cause) {
    return { kind: 'unavailable', cause };
  }
  if (response.status >= 400 && response.status < 500) {
    await discardBody(response);
    return { kind: 'absent', status: response.status };
  }
  if (response.status !== 200) {
    await discardBody(response);
    return { kind: 'unavailable', status: response.status };
  }
  return { kind: 'document', body: await readJsonObject(response), headers: response.headers };
}

/**
 * The schema and issuer checks of an authorization server metadata document, and nothing else (PKCE and the
 * endpoints a flow needs are `checkAuthorizationServerMetadata`'s). Throws `invalid_metadata`, `unsafe_endpoint`
 * or `issuer_mismatch`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.3
 */
export function parseAuthorizationServerMetadata(
  body: Record<string, unknown> | undefined,
  context: { url: string; issuer: string },
): AuthorizationServerMetadata {
  const parsed = AuthorizationServerMetadataSchema.safeParse(body);
  if (!parsed.success)
    throw schemaFailure(parsed.error, 'invalid_metadata', 'authorization server metadata', context.url);
  if (!sameIssuerIdentifier(context.issuer, parsed.data.issuer)) {
    throw new PortcullisError(
      'issuer_mismatch',
      `The metadata at ${context.url} names issuer ${parsed.data.issuer}, not ${context.issuer}; refusing to use it (RFC 8414 Section 3.3).`,
      { url: context.url, expected: context.issuer, published: parsed.data.issuer },
    );
  }
  return parsed.data;
}
