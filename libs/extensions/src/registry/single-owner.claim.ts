// Rule: some contributions have exactly one owner in a composition. A client grant strategy name selects one
// strategy; a request carries one `Authorization` scheme (RFC 9110 11.6.2), so one extension per side provides proof
// of possession (RFC 9449). A second claimant is refused, naming both.

import { ExtensionRegistryError } from './extension-registry.error.js';

/**
 * Hooks one extension provides alone, with that extension's id.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export interface Owned<H> {
  readonly extensionId: string;
  readonly hooks: H;
}

/**
 * One side's proof of possession: a request has one `Authorization` scheme, so one extension may provide it.
 *
 * @throws ExtensionRegistryError `proof_of_possession_conflict`.
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-7.1
 */
export function claimProof<H extends object>(
  current: Owned<H> | undefined,
  extensionId: string,
  hooks: H | undefined,
  side: string,
): Owned<H> | undefined {
  if (hooks === undefined) return current;
  if (current !== undefined) {
    throw new ExtensionRegistryError(
      'proof_of_possession_conflict',
      `Extensions ${current.extensionId} and ${extensionId} both provide proof of possession on the ${side} side.`,
      [current.extensionId, extensionId],
    );
  }
  return { extensionId, hooks };
}

/**
 * Records `extensionId` as the owner of `name`, refusing a name the host keeps or another extension owns.
 *
 * @throws ExtensionRegistryError with `code`.
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export function claimName(
  owners: Map<string, string>,
  name: string,
  extensionId: string,
  code: 'grant_type_conflict' | 'grant_strategy_conflict',
  what: string,
  reserved: ReadonlySet<string> = new Set(),
): void {
  if (reserved.has(name)) {
    throw new ExtensionRegistryError(
      code,
      `Extension ${extensionId} claims the ${what} ${name}, which extensions may not handle.`,
      [extensionId],
      name,
    );
  }
  const owner = owners.get(name);
  if (owner !== undefined) {
    throw new ExtensionRegistryError(
      code,
      `Extensions ${owner} and ${extensionId} both claim the ${what} ${name}.`,
      [owner, extensionId],
      name,
    );
  }
  owners.set(name, extensionId);
}
