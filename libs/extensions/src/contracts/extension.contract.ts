import type { AuthorizationServerHooks } from './authorization-server.hooks.js';
import type { ClientHooks } from './client.hooks.js';
import type { ResourceServerHooks } from './resource-server.hooks.js';

/**
 * An authorization extension: optional, additive, composable and versioned on its own. Each side is a set of
 * optional hooks; an extension that contributes nothing on a side leaves that side out.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export interface Extension {
  /**
   * `{vendor-prefix}/{extension-name}`: a reversed domain name the author controls, a slash, a lowercase
   * kebab-case name, e.g. `io.modelcontextprotocol/oauth-client-credentials` (see `isExtensionId`).
   */
  readonly id: string;
  /** The extension's own version, a Semantic Versioning 2.0.0 string such as `1.0.0` (see `isSemver`). */
  readonly version: string;
  /** Ids of the extensions this one needs; they are composed and run before it. */
  readonly requires?: readonly string[];
  readonly authorizationServer?: AuthorizationServerHooks;
  readonly resourceServer?: ResourceServerHooks;
  readonly client?: ClientHooks;
}

/**
 * An extension as the registry lists it.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export interface ExtensionSummary {
  readonly id: string;
  readonly version: string;
}

/**
 * Returns its argument unchanged. It exists so that an extension written as an object literal is checked against
 * `Extension` and keeps its literal types (its id, its grant type names) for whoever imports it.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export function defineExtension<const E extends Extension>(extension: E): E {
  return extension;
}
