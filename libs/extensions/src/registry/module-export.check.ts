// Rule: a module a host composes by name (`EXTENSIONS=@acme/portcullis-tenant`) default-exports an `Extension`, or
// a factory of one (`ExtensionFactory`) that the host calls once with its `ExtensionModuleContext`. Anything else
// stops the boot, with the reason: no default export, a default export of another kind, a factory that fails or
// returns something that is not an extension. The extension itself is then checked as every extension is
// (extension-shape.check.ts), before it is composed.

import type { ExtensionModuleContext } from '../contracts/extension-module.contract.js';
import type { Extension } from '../contracts/extension.contract.js';
import { ExtensionRegistryError } from './extension-registry.error.js';
import { assertExtensionShape } from './extension-shape.check.js';

/**
 * The extension a loaded module provides: its default export, or what its default export (a factory) returns for
 * `context`, checked for the contract's shape.
 *
 * @param namespace The module namespace object `import()` resolved to.
 * @throws ExtensionRegistryError `invalid_module`, or a shape code (`invalid_id`, `invalid_version`,
 *   `invalid_contribution`) for an extension that breaks the contract.
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export async function extensionFromModule(
  namespace: unknown,
  context: ExtensionModuleContext,
): Promise<Extension> {
  const exported =
    typeof namespace === 'object' && namespace !== null && 'default' in namespace
      ? (namespace as { default: unknown }).default
      : undefined;
  if (exported === undefined) {
    throw new ExtensionRegistryError(
      'invalid_module',
      'it has no default export (export default an extension, or a function of the host context that returns one).',
    );
  }
  if (typeof exported !== 'function') {
    if (typeof exported !== 'object' || exported === null || Array.isArray(exported)) {
      throw new ExtensionRegistryError(
        'invalid_module',
        `its default export is ${kind(exported)}, neither an extension nor a function that returns one.`,
      );
    }
    assertExtensionShape(exported);
    return exported;
  }
  let made: unknown;
  try {
    made = await (exported as (context: ExtensionModuleContext) => unknown)(context);
  } catch (error) {
    throw new ExtensionRegistryError(
      'invalid_module',
      `its factory failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (typeof made !== 'object' || made === null || Array.isArray(made)) {
    throw new ExtensionRegistryError(
      'invalid_module',
      `its factory returned ${kind(made)}, not an extension.`,
    );
  }
  assertExtensionShape(made);
  return made;
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
