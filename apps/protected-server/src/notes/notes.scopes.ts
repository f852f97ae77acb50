import type { ScopeHierarchy } from '@portcullis/protocol';

/** Reading one's notes. */
export const NOTES_READ = 'notes:read';
/** Creating and deleting one's notes. */
export const NOTES_WRITE = 'notes:write';

/** What the protected server publishes as `scopes_supported` (RFC 9728 Section 2); never `offline_access`. */
export const NOTES_SCOPES: readonly string[] = Object.freeze([NOTES_READ, NOTES_WRITE]);

/**
 * `notes` grants everything; writing implies reading (MCP 2026-07-28 "Step-Up Authorization Flow": a broader
 * scope satisfies narrower ones).
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-3.3 RFC 6749 Section 3.3}
 */
export const NOTES_SCOPE_HIERARCHY: ScopeHierarchy = Object.freeze({
  notes: [NOTES_READ, NOTES_WRITE],
  [NOTES_WRITE]: [NOTES_READ],
});
