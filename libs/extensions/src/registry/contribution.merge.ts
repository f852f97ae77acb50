// Rule: named contributions are additive and have exactly one owner (MCP extensions overview: extensions are
// additive and composable).
// - A name the host keeps (a reserved metadata field, claim or challenge parameter) is refused.
// - A name two extensions contribute is refused, naming both, whatever the values: "the later one wins" would
//   make the result depend on composition order and let one extension silently undo another.
// - Names are compared after `normalise` (challenge parameter names are case-insensitive, RFC 9110 section 11.2).
// - Members are defined as own data properties, so a name such as `__proto__` is an ordinary field and never
//   reaches an object's prototype.

import type { JsonValue } from '../contracts/json.types.js';
import { ExtensionRegistryError, type ExtensionRegistryErrorCode } from './extension-registry.error.js';

/**
 * How one kind of named contribution is merged.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export interface MergeRule {
  /** What a name is, for messages: `authorization server metadata field`. */
  readonly what: string;
  /** Names the host keeps, normalised. */
  readonly reserved: ReadonlySet<string>;
  readonly reservedCode: ExtensionRegistryErrorCode;
  readonly conflictCode: ExtensionRegistryErrorCode;
  readonly normalise?: (name: string) => string;
}

/**
 * One extension's contribution, already checked for shape.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export interface NamedContribution<V> {
  readonly extensionId: string;
  readonly fields: Readonly<Record<string, V>>;
}

/**
 * Merges contributions in the order given, throwing on a reserved name or a name contributed twice.
 *
 * @throws ExtensionRegistryError with the rule's `reservedCode` or `conflictCode`.
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export function mergeContributions<V extends JsonValue>(
  rule: MergeRule,
  contributions: Iterable<NamedContribution<V>>,
): Record<string, V> {
  const merged: Record<string, V> = {};
  const owners = new Map<string, string>();
  for (const { extensionId, fields } of contributions) {
    for (const [name, value] of Object.entries(fields)) {
      const key = rule.normalise ? rule.normalise(name) : name;
      if (rule.reserved.has(key)) {
        throw new ExtensionRegistryError(
          rule.reservedCode,
          `Extension ${extensionId} contributes the ${rule.what} ${name}, which only the host may set.`,
          [extensionId],
          name,
        );
      }
      const owner = owners.get(key);
      if (owner !== undefined) {
        throw new ExtensionRegistryError(
          rule.conflictCode,
          `Extensions ${owner} and ${extensionId} both contribute the ${rule.what} ${name}.`,
          [owner, extensionId],
          name,
        );
      }
      owners.set(key, extensionId);
      Object.defineProperty(merged, name, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  return merged;
}
