/**
 * Scope values: parsing, formatting, hierarchy-aware sufficiency, and the union used on re-authorization.
 *
 * Rules kept here:
 * - RFC 6749 Section 3.3: `scope = scope-token *( SP scope-token )`, `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`;
 *   the order does not matter and the tokens are case-sensitive. Anything else is `invalid_scope`, including
 *   empty tokens from leading, trailing or doubled spaces.
 * - MCP 2026-07-28 "Step-Up Authorization Flow": a broader scope implies narrower ones when deciding sufficiency;
 *   the implication is transitive, and a cycle in the hierarchy neither loops nor fails.
 * - MCP 2026-07-28 "Step-Up Authorization Flow" (step 2) and "Scope Selection Strategy": step-up asks for the union
 *   of previously requested or granted scopes and the scopes of the current challenge.
 */
import { OAuthError } from './oauth-error.js';

/**
 * A scope hierarchy: each broad scope maps to the narrower scopes it implies. Implication is transitive
 * (`admin -> write -> read` means `admin` satisfies `read`) and cycles are tolerated.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-3.3 RFC 6749 Section 3.3}
 */
export type ScopeHierarchy = Record<string, readonly string[]>;

/**
 * A set of scopes: a space-delimited scope string (parsed with {@link parseScope}), a list or set of scope tokens,
 * or nothing.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-3.3 RFC 6749 Section 3.3}
 */
export type ScopeInput = string | Iterable<string> | null | undefined;

const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/u;

/**
 * Whether `value` is one scope-token of RFC 6749 Section 3.3.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-3.3 RFC 6749 Section 3.3}
 */
export function isScopeToken(value: string): boolean {
  return typeof value === 'string' && SCOPE_TOKEN.test(value);
}

function assertScopeToken(token: string): void {
  if (!isScopeToken(token)) {
    throw new OAuthError(
      'invalid_scope',
      token === ''
        ? 'scope contains an empty scope-token (scope-tokens are separated by single spaces)'
        : 'scope contains characters outside RFC 6749 Section 3.3',
    );
  }
}

function dedupe(tokens: Iterable<string>): string[] {
  return [...new Set(tokens)];
}

/**
 * Parses a `scope` parameter value: split on single spaces, duplicates removed, first-seen order kept. An absent or
 * empty value gives `[]`. Throws `OAuthError('invalid_scope')` on characters outside RFC 6749 Section 3.3 and on
 * empty scope-tokens (leading, trailing or doubled spaces).
 *
 * @example
 * ```ts
 * parseScope('files:read files:write files:read'); // ['files:read', 'files:write']
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-3.3 RFC 6749 Section 3.3}
 */
export function parseScope(value?: string | null): string[] {
  if (value === undefined || value === null || value === '') return [];
  if (typeof value !== 'string') throw new OAuthError('invalid_scope', 'scope must be a string');
  const tokens = value.split(' ');
  tokens.forEach(assertScopeToken);
  return dedupe(tokens);
}

/**
 * Writes scopes as a `scope` parameter value: space-separated, duplicates removed, first-seen order kept; `''` for
 * none. Throws `OAuthError('invalid_scope')` for a value that is not a scope-token (so a token containing a space
 * cannot smuggle in a second one).
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-3.3 RFC 6749 Section 3.3}
 */
export function formatScope(scopes: Iterable<string>): string {
  const tokens = dedupe(scopes);
  tokens.forEach(assertScopeToken);
  return tokens.join(' ');
}

function toScopeList(input: ScopeInput): string[] {
  if (input === undefined || input === null) return [];
  // A string is iterable too, but character by character: parse it as a scope value instead.
  if (typeof input === 'string') return parseScope(input);
  const tokens = dedupe(input);
  tokens.forEach(assertScopeToken);
  return tokens;
}

/**
 * The scopes `scopes` stand for once the hierarchy is applied: themselves and every scope they imply, directly or
 * transitively. Cycles are tolerated. Order: the given scopes first, then implied ones breadth-first.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-3.3 RFC 6749 Section 3.3}
 */
export function expandScopes(scopes: ScopeInput, hierarchy: ScopeHierarchy = {}): string[] {
  const expanded = new Set(toScopeList(scopes));
  for (const scope of expanded) {
    // Iterating a Set visits entries added during the iteration, which makes this a breadth-first closure.
    const implied = Object.hasOwn(hierarchy, scope) ? hierarchy[scope] : undefined;
    for (const narrower of implied ?? []) expanded.add(narrower);
  }
  return [...expanded];
}

/**
 * The required scopes that the granted ones do not cover, even through the hierarchy; in the order required, each
 * once. `[]` means the grant is sufficient.
 *
 * @example
 * ```ts
 * missingScopes('files:read', ['files:read', 'files:write']); // ['files:write']
 * missingScopes(['admin'], 'files:read', { admin: ['files:write'], 'files:write': ['files:read'] }); // []
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3.1 RFC 6750 Section 3.1 (insufficient_scope)}
 */
export function missingScopes(
  granted: ScopeInput,
  required: ScopeInput,
  hierarchy?: ScopeHierarchy,
): string[] {
  const covered = new Set(expandScopes(granted, hierarchy));
  return toScopeList(required).filter((scope) => !covered.has(scope));
}

/**
 * Whether the granted scopes cover every required scope, a broader scope implying the narrower ones of the
 * hierarchy (MCP 2026-07-28 "Step-Up Authorization Flow"). With nothing required, any grant is sufficient.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3.1 RFC 6750 Section 3.1 (insufficient_scope)}
 */
export function scopesSatisfy(
  granted: ScopeInput,
  required: ScopeInput,
  hierarchy?: ScopeHierarchy,
): boolean {
  return missingScopes(granted, required, hierarchy).length === 0;
}

/**
 * The union of several scope sets, each scope once, in first-seen order: what a client asks for when it steps up
 * (previously requested or granted scopes plus the challenged ones).
 *
 * @example
 * ```ts
 * unionScopes('files:read', ['files:read', 'files:write']); // ['files:read', 'files:write']
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3.1 RFC 6750 Section 3.1}
 */
export function unionScopes(...lists: ScopeInput[]): string[] {
  return dedupe(lists.flatMap(toScopeList));
}
