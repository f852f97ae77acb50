import type { Extension } from './extension.contract.js';

/**
 * What a host gives the factory an extension module exports, once, at boot.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export interface ExtensionModuleContext {
  /**
   * The process environment, a frozen copy: where the extension reads settings of its own (name its variables
   * after it, `ACME_TENANTS`, so they never meet the host's).
   */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The authorization server's issuer identifier: the host's own on an authorization server or a proxy, the one
   * whose tokens it accepts on a protected resource.
   */
  readonly issuer: string;
  /** The MCP authorization revision in force, e.g. `2026-07-28`. */
  readonly revision: string;
}

/**
 * The default export of an extension module that needs settings: called once at boot, it returns the extension,
 * or a promise of it (to read a file, fetch a key set). What it throws fails the boot, naming the module.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export type ExtensionFactory = (context: ExtensionModuleContext) => Extension | Promise<Extension>;

/**
 * Returns its argument unchanged: it type-checks a factory written as an arrow function, for
 * `export default defineExtensionFactory(({ env }) => ({ ... }))`.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export function defineExtensionFactory(factory: ExtensionFactory): ExtensionFactory {
  return factory;
}
