import {
  ExtensionRegistry,
  ExtensionRegistryError,
  readExtensionNames,
  type Extension,
} from '@portcullis/extensions';
import { z } from 'zod';

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

/**
 * `EXTENSIONS`: comma-separated names of the app's catalogue (`known`). Unset or empty composes none; an unknown
 * name fails the boot with one configuration line naming it. {@link composeExtensions} turns the names into the
 * registry once the rest of the configuration is parsed.
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
 * The last step of an app's configuration schema: the `EXTENSIONS` names become the composed registry, each
 * extension made from the parsed configuration. A set the registry refuses fails the boot on `EXTENSIONS`.
 */
export function composeExtensions<Settings, Env extends Settings & { EXTENSIONS: readonly string[] }>(
  catalogue: ExtensionCatalogue<Settings>,
) {
  return (
    env: Env,
    context: z.RefinementCtx,
  ): Omit<Env, 'EXTENSIONS'> & { EXTENSIONS: ExtensionRegistry } => {
    try {
      const extensions = env.EXTENSIONS.map((name) => {
        const entry = catalogue[name] as ExtensionCatalogue<Settings>[string];
        return typeof entry === 'function' ? entry(env) : entry;
      });
      return { ...env, EXTENSIONS: ExtensionRegistry.compose(extensions) };
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
