/*
 * Validation of a fetched Client ID Metadata Document, as an authorization server must do before using it
 * (draft-ietf-oauth-client-id-metadata-document-00 sections 3, 4.1, 6.2; MCP "Client ID Metadata Documents":
 * "MUST validate that the fetched document's client_id matches the URL exactly", "MUST validate the document
 * structure is valid JSON and contains required fields"). Every rule runs, so the result names every broken
 * rule at once; an invalid document must not be cached (draft-00 4.4) and must not be used.
 */
import {
  clientIdMetadataDocumentObject,
  type ClientIdMetadataDocument,
} from '../schemas/client-id-metadata-document.schema.js';
import { CLIENT_ID_METADATA_DOCUMENT_CHECKS } from './checks/index.js';
import { violation, type ClientIdMetadataDocumentViolation } from './violation.js';

/**
 * The outcome of {@link validateClientIdMetadataDocument}: the parsed document, or every violated rule.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.1
 */
export type ClientIdMetadataDocumentValidation =
  | { readonly ok: true; readonly document: ClientIdMetadataDocument }
  | { readonly ok: false; readonly errors: readonly ClientIdMetadataDocumentViolation[] };

// Members whose every rule is a dedicated check; their schema issues would only repeat those checks.
const COVERED_BY_CHECKS = new Set<PropertyKey>(['client_id', 'client_name', 'redirect_uris']);

function toPath(path: readonly PropertyKey[]): (string | number)[] {
  return path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
}

function describePath(path: readonly (string | number)[]): string {
  return path
    .map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${segment}`))
    .join('')
    .slice(1);
}

/**
 * Checks a fetched Client ID Metadata Document against every rule of MCP 2026-07-28 "Client ID Metadata Documents"
 * and the draft, and against the client metadata schema. `clientIdUrl` is the exact URL the document was fetched
 * from; `client_id` must equal it by simple string comparison. `options.privateUseSchemes` are the private-use
 * redirect URI schemes the server allows (RFC 8252 7.1), none by default.
 *
 * @example
 * const result = validateClientIdMetadataDocument(JSON.parse(body), 'https://app.example.com/client.json');
 * if (!result.ok) log.warn({ rules: result.errors.map((e) => e.rule) }, 'client metadata refused');
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.1
 */
export function validateClientIdMetadataDocument(
  doc: unknown,
  clientIdUrl: string,
  options: { readonly privateUseSchemes?: readonly string[] } = {},
): ClientIdMetadataDocumentValidation {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    return { ok: false, errors: [violation('document_not_object', 'The document must be a JSON object')] };
  }
  const document = doc as Readonly<Record<string, unknown>>;
  const errors = CLIENT_ID_METADATA_DOCUMENT_CHECKS.flatMap((check) =>
    check(document, { clientIdUrl, ...options }),
  );
  const parsed = clientIdMetadataDocumentObject.safeParse(document);
  if (parsed.success && errors.length === 0) return { ok: true, document: parsed.data };
  if (!parsed.success) {
    // Issues on members that have a dedicated check would repeat it; keep them only if no check spoke up.
    const issues = parsed.error.issues;
    const uncovered = issues.filter((issue) => !COVERED_BY_CHECKS.has(issue.path[0] as PropertyKey));
    for (const issue of errors.length === 0 ? issues : uncovered) {
      const path = toPath(issue.path);
      errors.push(violation('invalid_metadata', `${describePath(path)}: ${issue.message}`, path));
    }
  }
  return { ok: false, errors };
}
