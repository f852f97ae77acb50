import {
  ExtensionRegistry,
  ExtensionRegistryError,
  readExtensionNames,
  type Extension,
} from '@portcullis/extensions';
import { z } from 'zod';

/**
 * The extensions a protected resource can compose, by the name its `EXTENSIONS` setting uses. The app decides
 * which packages it offers; this lib names none. A resource server takes no settings of its own for them (an
 * extension with nothing on the resource-server side is composed as it is, so the resource can declare it).
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export type ResourceServerExtensionCatalogue = Readonly<Record<string, Extension>>;

/**
 * `EXTENSIONS` of a protected resource: comma-separated names of `catalogue`, composed into the registry the
 * resource-server options take. Unset or empty composes none; an unknown name, or a set the registry refuses, fails
 * the boot with one configuration line naming the variable.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export function composedExtensionsEnvField(catalogue: ResourceServerExtensionCatalogue) {
  const known = Object.keys(catalogue);
  return z
    .string()
    .optional()
    .transform((text, context) => {
      const { names, problem } = readExtensionNames(text, known);
      if (problem !== undefined) {
        context.addIssue({ code: 'custom', message: problem });
        return z.NEVER;
      }
      try {
        return ExtensionRegistry.compose(names.map((name) => catalogue[name]));
      } catch (error) {
        if (!(error instanceof ExtensionRegistryError)) throw error;
        context.addIssue({ code: 'custom', message: `cannot be composed: ${error.message}` });
        return z.NEVER;
      }
    });
}

/**
 * A catalogue whose entries may need the app's parsed configuration: each is an extension, or a function making
 * one from the settings (an extension with settings of its own, such as DPoP's nonces and replay store).
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export type ConfiguredExtensionCatalogue<Settings> = Readonly<
  Record<string, Extension | ((settings: Settings) => Extension)>
>;

/**
 * `EXTENSIONS` read as names of a catalogue with settings (`known`): comma-separated, unset or empty for none; an
 * unknown name fails the boot with one configuration line naming it. {@link composeExtensionsFromEnv} makes them
 * the registry once the rest of the configuration is parsed.
 */
export function extensionNamesEnvField(known: readonly string[]) {
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
export function composeExtensionsFromEnv<Settings, Env extends Settings & { EXTENSIONS: readonly string[] }>(
  catalogue: ConfiguredExtensionCatalogue<Settings>,
) {
  return (
    env: Env,
    context: z.RefinementCtx,
  ): Omit<Env, 'EXTENSIONS'> & { EXTENSIONS: ExtensionRegistry } => {
    try {
      const extensions = env.EXTENSIONS.map((name) => {
        const entry = catalogue[name] as ConfiguredExtensionCatalogue<Settings>[string];
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
