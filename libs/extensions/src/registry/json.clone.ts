import type { JsonValue } from '../contracts/json.types.js';

/**
 * Deep-copies a value already known to be JSON, so that neither the registry's snapshot nor a document it
 * returned can be changed through the other. Members are defined as own data properties, so a member named
 * `__proto__` stays an ordinary member.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8259#section-3
 */
export function cloneJson<V extends JsonValue>(value: V): V {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item: JsonValue) => cloneJson(item)) as unknown as V;
  const copy: Record<string, JsonValue> = {};
  for (const [name, member] of Object.entries(value)) {
    Object.defineProperty(copy, name, {
      value: cloneJson(member),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy as V;
}
