// Rule: what an extension contributes to a metadata document or a token is JSON (RFC 8259), checked before it is
// serialised, so a mistake fails where it is made rather than as a silently dropped or mangled member.
// - Strings, booleans, null, finite numbers (RFC 8259 section 6 has no NaN or Infinity), arrays, and plain
//   objects (prototype Object.prototype or null) whose members are JSON values.
// - `undefined`, functions, symbols, bigints, class instances (Date, Map, URL...) and cycles are refused:
//   JSON.stringify would drop, throw on, or reshape each of them.

/**
 * Whether `value` is a plain object: created by a literal, `Object.create(null)` or JSON.parse, in this realm or
 * another (a vm context, a worker's structured clone), but not an instance of any class.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8259#section-4
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}

/**
 * Whether `value` is a JSON value that serialises without loss.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8259#section-3
 */
export function isJsonValue(value: unknown): boolean {
  return check(value, new Set());
}

function check(value: unknown, ancestors: Set<object>): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (ancestors.has(value)) return false;
  let members: readonly unknown[];
  if (Array.isArray(value))
    members = Array.from(value); // a hole becomes undefined, refused
  else if (isPlainObject(value) && Object.getOwnPropertySymbols(value).length === 0)
    members = Object.values(value);
  else return false;
  ancestors.add(value);
  const ok = members.every((member) => check(member, ancestors));
  ancestors.delete(value);
  return ok;
}
