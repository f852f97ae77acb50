import { beforeEach, describe, expect, it } from '@jest/globals';
import { addProjectConfiguration, readJson, type Tree } from '@nx/devkit';
import { createTreeWithEmptyWorkspace } from '@nx/devkit/testing';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import extensionGenerator from './extension.generator.js';

// The generator runs on a virtual tree seeded with this repository's real files: the catalogues it edits, the
// tsconfig.base.json it maps the package in, and the contract lib whose version the new package takes.
const root = fileURLToPath(new URL('../../../../../', import.meta.url));
const APPS = ['authorization-server', 'protected-server', 'proxy'] as const;
const catalogue = (app: string) => `apps/${app}/src/extensions.ts`;
const real = (path: string) => readFileSync(`${root}${path}`, 'utf8');

let tree: Tree;

beforeEach(() => {
  tree = createTreeWithEmptyWorkspace();
  for (const path of ['tsconfig.base.json', 'libs/extensions/package.json']) tree.write(path, real(path));
  addProjectConfiguration(tree, 'extensions', { root: 'libs/extensions', projectType: 'library' });
  for (const app of APPS) {
    addProjectConfiguration(tree, app, { root: `apps/${app}`, projectType: 'application' });
    tree.write(catalogue(app), real(catalogue(app)));
  }
});

function changedPaths(): string[] {
  return tree
    .listChanges()
    .map(({ path }) => path)
    .sort();
}

/** The catalogue's text with the given lines taken out once each, to compare with the file before the edit. */
function without(text: string, lines: readonly string[]): string {
  return lines.reduce((rest, line) => rest.replace(`${line}\n`, ''), text);
}

describe('nx g @portcullis/workspace:extension', () => {
  it('scaffolds libs/extension-<name> as a published, framework-free package at the libs version', async () => {
    await extensionGenerator(tree, { name: 'probe', skipInstall: true });
    const lib = 'libs/extension-probe';
    expect(tree.children(lib).sort()).toEqual([
      'CHANGELOG.md',
      'README.md',
      'jest.config.js',
      'package.json',
      'project.json',
      'src',
      'tsconfig.build.json',
      'tsconfig.json',
    ]);
    expect(tree.children(`${lib}/src`).sort()).toEqual([
      'index.ts',
      'probe.extension.spec.ts',
      'probe.extension.ts',
    ]);
    const version = readJson(tree, 'libs/extensions/package.json').version as string;
    const manifest = readJson(tree, `${lib}/package.json`);
    expect(manifest).toMatchObject({
      name: '@portcullis/extension-probe',
      version,
      type: 'module',
      license: 'Apache-2.0',
      exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
      dependencies: { '@portcullis/extensions': version },
    });
    expect(manifest.private).toBeUndefined();
    const project = readJson(tree, `${lib}/project.json`);
    expect(project).toMatchObject({
      name: 'extension-probe',
      sourceRoot: `${lib}/src`,
      projectType: 'library',
    });
    expect(project.tags).toEqual(['type:framework-free', 'scope:published']);
    expect(Object.keys(project.targets)).toEqual(['build', 'typecheck', 'lint', 'test']);
    expect(tree.read(`${lib}/jest.config.js`, 'utf-8')).toContain("displayName: 'extension-probe'");
    expect(tree.read(`${lib}/README.md`, 'utf-8')).toMatch(/^# @portcullis\/extension-probe\n/);
    expect(tree.read(`${lib}/CHANGELOG.md`, 'utf-8')).toContain(`## ${version}\n`);
  });

  it('writes an extension defined with defineExtension and a spec that composes it in an ExtensionRegistry', async () => {
    await extensionGenerator(tree, {
      name: 'tenant-claims',
      id: 'com.acme/tenant-claims',
      skipInstall: true,
    });
    const src = 'libs/extension-tenant-claims/src';
    const extension = tree.read(`${src}/tenant-claims.extension.ts`, 'utf-8')!;
    expect(extension).toContain("export const TENANT_CLAIMS_EXTENSION_ID = 'com.acme/tenant-claims';");
    expect(extension).toContain('export const tenantClaimsExtension = defineExtension({');
    expect(extension).toContain('metadata: { tenant_claims_supported: true },');
    expect(tree.read(`${src}/index.ts`, 'utf-8')).toBe(
      "export { TENANT_CLAIMS_EXTENSION_ID, tenantClaimsExtension } from './tenant-claims.extension.js';\n",
    );
    const spec = tree.read(`${src}/tenant-claims.extension.spec.ts`, 'utf-8')!;
    expect(spec).toContain('ExtensionRegistry.compose([tenantClaimsExtension])');
    expect(spec).toContain("describe('com.acme/tenant-claims'");
    expect(spec).not.toMatch(/<%|%>/);
  });

  it('maps the package to its sources in tsconfig.base.json, keeping the other paths in order', async () => {
    const before = readJson(tree, 'tsconfig.base.json').compilerOptions.paths as Record<string, string[]>;
    await extensionGenerator(tree, { name: 'probe', skipInstall: true });
    const after = readJson(tree, 'tsconfig.base.json').compilerOptions.paths as Record<string, string[]>;
    expect(after['@portcullis/extension-probe']).toEqual(['./libs/extension-probe/src/index.ts']);
    const { ['@portcullis/extension-probe']: _added, ...others } = after;
    expect(others).toEqual(before);
    expect(Object.keys(after)).toEqual(Object.keys(after).sort());
  });

  it('adds the extension to the authorization server catalogue by default, and to no other app', async () => {
    await extensionGenerator(tree, { name: 'probe', skipInstall: true });
    const edited = tree.read(catalogue('authorization-server'), 'utf-8')!;
    const lines = [
      "import { probeExtension } from '@portcullis/extension-probe';",
      '  // com.example/probe (@portcullis/extension-probe)',
      '  probe: probeExtension,',
    ];
    for (const line of lines) expect(edited).toContain(`${line}\n`);
    expect(edited).toMatch(/ {2}probe: probeExtension,\n};\n$/);
    expect(without(edited, lines)).toBe(real(catalogue('authorization-server')));
    expect(tree.read(catalogue('protected-server'), 'utf-8')).toBe(real(catalogue('protected-server')));
    expect(tree.read(catalogue('proxy'), 'utf-8')).toBe(real(catalogue('proxy')));
  });

  it('adds it to every app --apps names, quoting a kebab-case name', async () => {
    await extensionGenerator(tree, {
      name: 'tenant-claims',
      apps: 'authorization-server, protected-server,proxy',
      skipInstall: true,
    });
    const lines = [
      "import { tenantClaimsExtension } from '@portcullis/extension-tenant-claims';",
      '  // com.example/tenant-claims (@portcullis/extension-tenant-claims)',
      "  'tenant-claims': tenantClaimsExtension,",
    ];
    for (const app of APPS) {
      const edited = tree.read(catalogue(app), 'utf-8')!;
      expect(edited).toMatch(/ {2}'tenant-claims': tenantClaimsExtension,\n};\n$/);
      expect(without(edited, lines)).toBe(real(catalogue(app)));
    }
    expect(tree.read('libs/extension-tenant-claims/README.md', 'utf-8')).toContain(
      '`EXTENSIONS=tenant-claims` on `apps/authorization-server`, `apps/protected-server` and `apps/proxy`.',
    );
  });

  it('with --apps= empty, edits no catalogue and says so in the README', async () => {
    await extensionGenerator(tree, { name: 'probe', apps: '', skipInstall: true });
    for (const app of APPS) expect(tree.read(catalogue(app), 'utf-8')).toBe(real(catalogue(app)));
    expect(tree.read('libs/extension-probe/README.md', 'utf-8')).toContain('no app composes it yet');
  });

  it.each([
    [{ name: 'Probe' }, /not lowercase kebab-case/],
    [{ name: 'probe_x' }, /not lowercase kebab-case/],
    [{ name: '1probe' }, /not lowercase kebab-case/],
    [{ name: 'probe', id: 'probe' }, /--id "probe" is not \{vendor-prefix\}\/\{extension-name\}/],
    [{ name: 'probe', id: 'Com.Example/probe' }, /--id/],
    [{ name: 'probe', apps: 'authorization-server,nope' }, /--apps: "nope" is not an app/],
    [{ name: 'probe', apps: 'extensions' }, /--apps: "extensions" is not an app/],
  ])('refuses %j and writes nothing', async (schema, message) => {
    const before = changedPaths();
    await expect(extensionGenerator(tree, { skipInstall: true, ...schema })).rejects.toThrow(message);
    expect(changedPaths()).toEqual(before);
  });

  it('refuses a name whose lib exists, writing nothing', async () => {
    tree.write('libs/extension-probe/README.md', '# mine\n');
    const before = changedPaths();
    await expect(extensionGenerator(tree, { name: 'probe', skipInstall: true })).rejects.toThrow(
      'libs/extension-probe (project extension-probe) exists already.',
    );
    expect(changedPaths()).toEqual(before);
    expect(tree.read('libs/extension-probe/README.md', 'utf-8')).toBe('# mine\n');
  });

  it('refuses a name a chosen catalogue has already, before writing anything', async () => {
    const proxy = real(catalogue('proxy')).replace(/\n};\n$/, '\n  probe: {} as never,\n};\n');
    tree.write(catalogue('proxy'), proxy);
    const before = changedPaths();
    await expect(
      extensionGenerator(tree, { name: 'probe', apps: 'authorization-server,proxy', skipInstall: true }),
    ).rejects.toThrow(`${catalogue('proxy')}: AVAILABLE_EXTENSIONS already has an extension named "probe".`);
    expect(changedPaths()).toEqual(before);
    expect(tree.exists('libs/extension-probe')).toBe(false);
    expect(tree.read(catalogue('authorization-server'), 'utf-8')).toBe(
      real(catalogue('authorization-server')),
    );
    expect(tree.read(catalogue('proxy'), 'utf-8')).toBe(proxy);
  });
});
