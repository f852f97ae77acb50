/**
 * Text a request may carry in a parameter: anything but C0 control characters other than tab, line feed and carriage
 * return, DEL, and lone UTF-16 surrogates. NUL cannot be stored in a PostgreSQL text value, and a lone surrogate is
 * not a Unicode scalar value (it has no UTF-8 form), so both are refused where requests are parsed, in the
 * endpoint's own error format, rather than failing later in the database.
 *
 * @see https://www.rfc-editor.org/rfc/rfc3629#section-3 (UTF-8: surrogates are not encoded)
 * @see https://www.rfc-editor.org/rfc/rfc6749#appendix-A (OAuth parameter syntax: VSCHAR and the like)
 */
// eslint-disable-next-line no-control-regex -- finding control characters is this pattern's purpose
const UNSAFE_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uD800-\uDFFF]/u;

/** Whether `text` holds a control character (other than tab, LF, CR) or a lone surrogate. */
export function hasUnsafeCharacter(text: string): boolean {
  return UNSAFE_CHARACTER.test(text);
}

/**
 * Where the first unsafe text of a parsed JSON value is: the path of a string (`client_name`, `contacts[1]`), or
 * `a member name` (in which object) for a key, never the unsafe text itself; `undefined` when there is none.
 */
export function findUnsafeJsonText(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return hasUnsafeCharacter(value) ? path || '(the body)' : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findUnsafeJsonText(item, `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      // The name itself is not echoed: it is the unsafe text.
      if (hasUnsafeCharacter(key)) return path ? `a member name in ${path}` : 'a member name';
      const found = findUnsafeJsonText(item, at);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
