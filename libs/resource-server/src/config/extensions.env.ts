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
