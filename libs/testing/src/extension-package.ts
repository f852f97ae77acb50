import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A directory with extension packages installed in its `node_modules`, as `npm install` leaves them. */
export interface ExtensionsDirectory {
  /** The directory, for `EXTENSIONS_DIR`. */
  readonly dir: string;
  remove(): Promise<void>;
}

/** One package to install: its name, its `package.json` members besides the name, and its files. */
export interface ExtensionPackage {
  /** The package name `EXTENSIONS` names, e.g. `@acme/portcullis-tenant`. */
  readonly name: string;
  /** More `package.json` members (`type`, `exports`, `main`, ...); default an ESM package exporting `./index.js`. */
  readonly manifest?: Readonly<Record<string, unknown>>;
  /** Files by path inside the package, e.g. `{ 'dist/index.js': 'export default ...' }`. */
  readonly files: Readonly<Record<string, string>>;
}

/**
 * Installs `packages` into `node_modules` of a new temporary directory, outside the repository, for an app started
 * with `EXTENSIONS_DIR` there: a team's extension package as the app's container would have it after `npm install`.
 */
export async function installExtensionPackages(
  packages: readonly ExtensionPackage[],
): Promise<ExtensionsDirectory> {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-extensions-'));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ private: true }));
  for (const { name, manifest, files } of packages) {
    const root = join(dir, 'node_modules', ...name.split('/'));
    const members = manifest ?? { type: 'module', exports: { '.': './index.js' } };
    await mkdir(root, { recursive: true });
    await writeFile(
      join(root, 'package.json'),
      JSON.stringify({ name, version: '1.0.0', ...members }, null, 2),
    );
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
