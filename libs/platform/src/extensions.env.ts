import { resolve } from 'node:path';
import {
  ExtensionRegistry,
  ExtensionRegistryError,
  readExtensionNames,
  type Extension,
} from '@portcullis/extensions';
import { z } from 'zod';
import { ConfigError, type EnvSource } from './config.js';
import { loadExtensionModule } from './extension-modules.js';

/**
 * The extensions an app can compose, by the name `EXTENSIONS` uses: an extension, or a function of the app's parsed
 * configuration that makes one (for an extension with settings of its own, such as the identity providers it
 * trusts, or DPoP's nonces and replay store). The app decides which packages it offers; this lib names none. The
 * authorization server, the proxy and the protected server read their `EXTENSIONS` with it.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export type ExtensionCatalogue<Settings> = Readonly<
  Record<string, Extension | ((settings: Settings) => Extension)>
>;

/** The modules `EXTENSIONS` names, to be loaded once the configuration is parsed, and the app's built-in names. */
export interface ExtensionModuleNames {
  readonly specifiers: readonly string[];
  readonly builtIns: readonly string[];
}

/**
 * `EXTENSIONS`: comma-separated names of the app's catalogue (`known`) and module specifiers (a package installed in
 * `EXTENSIONS_DIR`, or a path). Unset or empty composes none; a name that is neither fails the boot with one
 * configuration line naming it. {@link composeExtensions} turns the built-in names into the registry once the rest of
 * the configuration is parsed; {@link composeExtensionModules} adds the modules.
 */
export function extensionsEnvField(known: readonly string[]) {
  return z
    .string()
    .optional()
    .transform((text, context) => {
      const { names, problem } = readExtensionNames(text, known);
      if (problem === undefined) return names;
      context.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    });
}

/**
 * The last step of an app's configuration schema: the `EXTENSIONS` names of the catalogue become the composed
 * registry, each extension made from the parsed configuration, and the other names (modules) are kept in
 * `EXTENSION_MODULES` for {@link composeExtensionModules}. A set the registry refuses fails the boot on `EXTENSIONS`.
 */
export function composeExtensions<Settings, Env extends Settings & { EXTENSIONS: readonly string[] }>(
  catalogue: ExtensionCatalogue<Settings>,
) {
  return (
    env: Env,
    context: z.RefinementCtx,
  ): Omit<Env, 'EXTENSIONS'> & { EXTENSIONS: ExtensionRegistry; EXTENSION_MODULES: ExtensionModuleNames } => {
    const builtIns = Object.keys(catalogue);
    try {
      const extensions = env.EXTENSIONS.filter((name) => Object.hasOwn(catalogue, name)).map((name) => {
        const entry = catalogue[name] as ExtensionCatalogue<Settings>[string];
        return typeof entry === 'function' ? entry(env) : entry;
      });
      return {
        ...env,
        EXTENSIONS: ExtensionRegistry.compose(extensions),
        EXTENSION_MODULES: {
          specifiers: env.EXTENSIONS.filter((name) => !Object.hasOwn(catalogue, name)),
          builtIns,
        },
      };
    } catch (error) {
      if (!(error instanceof ExtensionRegistryError)) throw error;
      context.addIssue({
        code: 'custom',
        path: ['EXTENSIONS'],
        message: `cannot be composed: ${error.message}`,
      });
      return z.NEVER;
    }
  };
}

/** A parsed configuration with `EXTENSIONS` composed by {@link composeExtensions}. */
export interface ExtensionsConfig {
  readonly EXTENSIONS: ExtensionRegistry;
  readonly EXTENSION_MODULES: ExtensionModuleNames;
  readonly EXTENSIONS_DIR?: string | undefined;
}

/** What an app gives {@link composeExtensionModules}: its identity for the factories, and what its entry point adds. */
export interface ExtensionModulesOptions {
  /** The authorization server's issuer: the app's own (authorization server, proxy), or the one it trusts. */
  readonly issuer: string;
  readonly revision: string;
  /**
   * Extensions the embedding code (a custom entry point, a test) composes beside the configured ones: added to what
   * `EXTENSIONS` names, never in place of it.
   */
  readonly add?: ExtensionRegistry | readonly Extension[] | undefined;
}

/**
 * Loads the modules `EXTENSIONS` names from `EXTENSIONS_DIR` (default: the working directory), in the order given,
 * each default export an extension or a factory called with `{ env, issuer, revision }` (`env` a frozen copy of
 * `source`), and composes them and `options.add` with the built-in ones under the registry's checks.
 *
 * @throws ConfigError in one line naming `EXTENSIONS` and the module, or the conflict.
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export async function composeExtensionModules<Config extends ExtensionsConfig>(
  config: Config,
  source: EnvSource,
  options: ExtensionModulesOptions,
): Promise<Config> {
  const { specifiers, builtIns } = config.EXTENSION_MODULES;
  const added =
    options.add instanceof ExtensionRegistry ? options.add.list().length : (options.add?.length ?? 0);
  if (specifiers.length === 0 && added === 0) return config;
  const dir = resolve(config.EXTENSIONS_DIR ?? '.');
  const context = Object.freeze({
    env: Object.freeze({ ...source }),
    issuer: options.issuer,
    revision: options.revision,
  });
  const loaded: Extension[] = [];
  for (const specifier of specifiers) {
    loaded.push(await loadExtensionModule(specifier, { dir, context, builtIns }));
  }
  const withModules =
    loaded.length > 0
      ? composed(() => config.EXTENSIONS.with(loaded), 'with the modules it names')
      : config.EXTENSIONS;
  const { add } = options;
  return {
    ...config,
    EXTENSIONS: add
      ? composed(() => withModules.with(add), 'with the extensions the entry point adds')
      : withModules,
  };
}

function composed(compose: () => ExtensionRegistry, what: string): ExtensionRegistry {
  try {
    return compose();
  } catch (error) {
    if (!(error instanceof ExtensionRegistryError)) throw error;
    throw new ConfigError(`invalid configuration: EXTENSIONS cannot be composed ${what}: ${error.message}`);
  }
}
