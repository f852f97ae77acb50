import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ExtensionModuleContext } from '@portcullis/extensions';
import { ConfigError } from './config.js';
import { loadExtensionModule, resolveExtensionModule } from './extension-modules.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'portcullis-modules-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Writes files under `root`, creating folders. */
async function write(files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

/** A package in `root/<at>/node_modules/<name>` with this manifest and files. */
async function installed(at: string, name: string, manifest: object, files: Record<string, string>) {
  const base = join(at, 'node_modules', name);
  await write({
    [join(base, 'package.json')]: JSON.stringify({ name, version: '1.0.0', ...manifest }),
    ...Object.fromEntries(Object.entries(files).map(([path, text]) => [join(base, path), text])),
  });
  return join(root, base);
}

const EXTENSION = "export default { id: 'com.acme/tenant', version: '1.0.0' };\n";

describe('resolveExtensionModule', () => {
  it('resolves an ESM-only package through its exports’ import condition, which require.resolve cannot', async () => {
    const pkg = await installed(
      'esm',
      '@acme/tenant',
      {
        type: 'module',
        exports: {
          '.': { types: './dist/index.d.ts', import: './dist/index.js' },
          './extension': { import: './dist/extension.js' },
        },
      },
      { 'dist/index.js': EXTENSION, 'dist/extension.js': EXTENSION },
    );
    const dir = join(root, 'esm');
    expect(() => createRequire(join(dir, 'package.json')).resolve('@acme/tenant')).toThrow();
    expect(resolveExtensionModule('@acme/tenant', dir)).toEqual(pathToFileURL(join(pkg, 'dist/index.js')));
    expect(resolveExtensionModule('@acme/tenant/extension', dir)).toEqual(
      pathToFileURL(join(pkg, 'dist/extension.js')),
    );
    expect(() => resolveExtensionModule('@acme/tenant/internal.js', dir)).toThrow(/internal/);
  });

  it('resolves a package without exports through main, else index.js, from a folder below the node_modules', async () => {
    const withMain = await installed(
      'legacy',
      'acme-main',
      { main: 'lib/main.js' },
      { 'lib/main.js': EXTENSION },
    );
    const withIndex = await installed('legacy', 'acme-index', {}, { 'index.js': EXTENSION });
    await write({ 'legacy/deploy/README': 'a folder below the one that has node_modules' });
    const dir = join(root, 'legacy', 'deploy');
    expect(resolveExtensionModule('acme-main', dir)).toEqual(pathToFileURL(join(withMain, 'lib/main.js')));
    expect(resolveExtensionModule('acme-index', dir)).toEqual(pathToFileURL(join(withIndex, 'index.js')));
  });

  it('resolves a relative path against the directory, an absolute path and a file URL as they are', async () => {
    await write({ 'paths/local/tenant.js': EXTENSION });
    const file = join(root, 'paths/local/tenant.js');
    expect(resolveExtensionModule('./local/tenant.js', join(root, 'paths'))).toEqual(pathToFileURL(file));
    expect(resolveExtensionModule(file, tmpdir())).toEqual(pathToFileURL(file));
    expect(resolveExtensionModule(pathToFileURL(file).href, tmpdir())).toEqual(pathToFileURL(file));
  });

  it('finds nothing for a package that is not installed or a file that does not exist', () => {
    expect(resolveExtensionModule('@acme/absent', root)).toBeUndefined();
    expect(resolveExtensionModule('./absent.js', root)).toBeUndefined();
  });
});

describe('loadExtensionModule', () => {
  const context: ExtensionModuleContext = Object.freeze({
    env: Object.freeze({ ACME_TENANT: 'acme' }),
    issuer: 'https://as.example.com',
    revision: '2026-07-28',
  });
  const source = () => ({ dir: join(root, 'load'), context, builtIns: ['dpop', 'client-credentials'] });

  /** The ConfigError message loading `specifier` rejects with. */
  async function refusal(specifier: string): Promise<string> {
    const error = await loadExtensionModule(specifier, source()).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ConfigError);
    const { message } = error as Error;
    expect(message).not.toContain('\n');
    return message;
  }

  it('calls a default-exported factory with the host context and returns its extension', async () => {
    await installed(
      'load',
      '@acme/factory',
      { type: 'module', exports: './index.js' },
      {
        'index.js': `export default ({ env, issuer, revision }) => ({
        id: 'com.acme/factory',
        version: '1.0.0',
        authorizationServer: { metadata: { acme_tenant: env.ACME_TENANT, acme_issuer: issuer, acme_revision: revision } },
      });\n`,
      },
    );
    const extension = await loadExtensionModule('@acme/factory', source());
    expect(extension.authorizationServer?.metadata).toEqual({
      acme_tenant: 'acme',
      acme_issuer: 'https://as.example.com',
      acme_revision: '2026-07-28',
    });
  });

  it('refuses a name that is neither built in nor installed, naming it, the built-in names and the directory', async () => {
    expect(await refusal('@acme/absent')).toBe(
      `invalid configuration: EXTENSIONS names @acme/absent, which is neither a built-in extension (known: client-credentials, dpop) nor a module installed in ${join(root, 'load')} (EXTENSIONS_DIR)`,
    );
  });

  it('refuses a module that fails to import, with the reason on the same line', async () => {
    await installed('load', 'acme-broken', { type: 'module' }, { 'index.js': 'export default {\n  id: ;\n' });
    expect(await refusal('acme-broken')).toMatch(
      /^invalid configuration: EXTENSIONS module acme-broken \(.*acme-broken\/index\.js\) cannot be loaded: .+/,
    );
  });

  it('refuses a module whose default export is not an extension, saying what it is', async () => {
    await installed(
      'load',
      'acme-string',
      { type: 'module' },
      { 'index.js': "export default 'com.acme/tenant';\n" },
    );
    expect(await refusal('acme-string')).toMatch(
      /^invalid configuration: EXTENSIONS module acme-string \(.*\) is not an extension: its default export is a string, neither an extension nor a function that returns one\.$/,
    );
  });

  it('refuses a package that does not export the subpath named', async () => {
    await installed(
      'load',
      'acme-closed',
      { type: 'module', exports: { '.': './index.js' } },
      { 'index.js': EXTENSION },
    );
    expect(await refusal('acme-closed/internal.js')).toMatch(
      /^invalid configuration: EXTENSIONS module acme-closed\/internal\.js cannot be resolved from .*: /,
    );
  });
});
