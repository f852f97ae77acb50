import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  extensionFromModule,
  ExtensionRegistryError,
  type Extension,
  type ExtensionModuleContext,
} from '@portcullis/extensions';
import { exports as exportsTarget } from 'resolve.exports';
import { ConfigError } from './config.js';

/**
 * Where `EXTENSIONS` modules are looked for and what their factories get: the directory whose `node_modules` holds
 * them (`EXTENSIONS_DIR`), and the host's context.
 */
export interface ExtensionModuleSource {
  /** An absolute directory: bare names resolve from its `node_modules` (and its parents'), paths against it. */
  readonly dir: string;
  readonly context: ExtensionModuleContext;
  /** The app's built-in extension names, for the message about a name that is neither one nor installed. */
  readonly builtIns: readonly string[];
}

/**
 * Resolves a module specifier from `dir` as Node's ECMAScript module resolver would from a module there: a path
 * (relative to `dir`, absolute, or a `file:` URL), or a package found in the `node_modules` folders from `dir` up,
 * through its `exports` with the `import`, `node` and `default` conditions, else its `main` (or `index.js`).
 *
 * @returns the module's file URL, or `undefined` when no such package or file exists.
 * @throws Error when the package exists but does not export that subpath.
 * @see https://nodejs.org/api/esm.html#resolution-algorithm-specification
 * @see https://nodejs.org/api/packages.html#package-entry-points
 */
export function resolveExtensionModule(specifier: string, dir: string): URL | undefined {
  if (specifier.startsWith('file://')) return existingFile(fileURLToPath(specifier));
  if (specifier.startsWith('./') || specifier.startsWith('../') || isAbsolute(specifier)) {
    return existingFile(resolve(dir, specifier));
  }
  const [first = '', second] = specifier.split('/');
  const name = first.startsWith('@') ? `${first}/${second ?? ''}` : first;
  const subpath = specifier.slice(name.length);
  // The folders Node's resolver tries for a bare name from a module in `dir`: its node_modules, its parents'.
  const lookup = createRequire(join(dir, 'package.json')).resolve.paths(name) ?? [];
  const root = lookup
    .map((folder) => join(folder, name))
    .find((folder) => existsSync(join(folder, 'package.json')));
  if (root === undefined) return undefined;
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  if (manifest['exports'] !== undefined) {
    const [target] = exportsTarget(manifest, `.${subpath}`) ?? [];
    if (target === undefined) throw new Error(`${name} exports nothing at .${subpath}`);
    return existingFile(join(root, target));
  }
  if (subpath !== '') return existingFile(join(root, subpath));
  const main = typeof manifest['main'] === 'string' ? manifest['main'] : undefined;
  const candidates = main ? [main, `${main}.js`, join(main, 'index.js')] : ['index.js'];
  for (const candidate of candidates) {
    const found = existingFile(join(root, candidate));
    if (found) return found;
  }
  return undefined;
}

/**
 * Imports the module `specifier` names and returns its extension (its default export, or what its default export,
 * a factory, returns for `source.context`), checked for the contract's shape.
 *
 * @throws ConfigError naming `EXTENSIONS` and the module, in one line: not found, failing to import, or not an
 *   extension.
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export async function loadExtensionModule(
  specifier: string,
  source: ExtensionModuleSource,
): Promise<Extension> {
  let url: URL | undefined;
  try {
    url = resolveExtensionModule(specifier, source.dir);
  } catch (error) {
    throw refusal(`module ${specifier} cannot be resolved from ${source.dir}: ${reason(error)}`);
  }
  if (url === undefined) {
    const builtIns = [...source.builtIns].sort().join(', ') || 'none';
    throw refusal(
      `names ${specifier}, which is neither a built-in extension (known: ${builtIns}) nor a module installed in ${source.dir} (EXTENSIONS_DIR)`,
    );
  }
  let namespace: unknown;
  try {
    namespace = await import(url.href);
  } catch (error) {
    throw refusal(`module ${specifier} (${fileURLToPath(url)}) cannot be loaded: ${reason(error)}`);
  }
  try {
    return await extensionFromModule(namespace, source.context);
  } catch (error) {
    if (!(error instanceof ExtensionRegistryError)) throw error;
    throw refusal(`module ${specifier} (${fileURLToPath(url)}) is not an extension: ${reason(error)}`);
  }
}

function existingFile(path: string): URL | undefined {
  return existsSync(path) && statSync(path).isFile() ? pathToFileURL(path) : undefined;
}

function refusal(message: string): ConfigError {
  return new ConfigError(`invalid configuration: EXTENSIONS ${message}`);
}

/** An error's message on one line (a syntax error's has the offending source on the next lines). */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
}
