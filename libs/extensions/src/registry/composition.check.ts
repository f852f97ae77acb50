// Rule: a set of extensions composes only when each has the contract's shape, no two share an id, and everything
// each one requires is in the set (MCP extensions overview: extensions are composable, named by unique ids).
// - Extensions are examined in id order, so the error reported for a set never depends on the order it was
//   given in.
// - Requirements are ids only: a required extension is present or it is not; versions are not matched.

import type { Extension } from '../contracts/extension.contract.js';
import { ExtensionRegistryError } from './extension-registry.error.js';
import { assertExtensionShape } from './extension-shape.check.js';
import { compareIds } from './requirement.order.js';

/**
 * An extension that passed the shape check, with its requirements de-duplicated.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export interface Candidate {
  readonly id: string;
  readonly version: string;
  readonly requires: readonly string[];
  readonly extension: Extension;
}

/**
 * Checks the shape of every extension and refuses two with one id.
 *
 * @throws ExtensionRegistryError `invalid_id`, `invalid_version`, `invalid_contribution` or `duplicate_id`.
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export function checkIds(extensions: readonly unknown[]): Candidate[] {
  const sorted = [...extensions].sort((a, b) => compareIds(idOf(a), idOf(b)));
  const candidates = sorted.map((extension): Candidate => {
    assertExtensionShape(extension);
    return {
      id: extension.id,
      version: extension.version,
      requires: [...new Set(extension.requires)],
      extension,
    };
  });
  for (let i = 1; i < candidates.length; i++) {
    const id = (candidates[i] as Candidate).id;
    if (id === (candidates[i - 1] as Candidate).id) {
      throw new ExtensionRegistryError('duplicate_id', `Two extensions have the id ${id}.`, [id], id);
    }
  }
  return candidates;
}

/**
 * Refuses an extension that requires an id outside the set, naming every missing id.
 *
 * @throws ExtensionRegistryError `missing_requirement`.
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export function checkRequirements(candidates: readonly Candidate[]): readonly Candidate[] {
  const ids = new Set(candidates.map(({ id }) => id));
  for (const { id, requires } of candidates) {
    const missing = requires.filter((required) => !ids.has(required));
    if (missing.length > 0) {
      throw new ExtensionRegistryError(
        'missing_requirement',
        `Extension ${id} requires ${missing.join(', ')}, which ${missing.length > 1 ? 'are' : 'is'} not composed.`,
        [id],
        missing[0],
      );
    }
  }
  return candidates;
}

function idOf(extension: unknown): string {
  const id =
    typeof extension === 'object' && extension !== null ? (extension as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : '';
}
