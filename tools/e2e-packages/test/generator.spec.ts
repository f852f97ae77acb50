// `nx g @portcullis/workspace:extension` as a team runs it, in a copy of this workspace (test/support/workspace-copy.ts)
// so the repository's working tree is never written: the generated lib passes the workspace's own targets (lint with
// @nx/dependency-checks and the module boundaries, typecheck, build, and the example test it comes with), its build
// is an ESM package whose extension composes in an ExtensionRegistry, and the apps whose catalogues it edited still
// typecheck with the import it added.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { copyWorkspace, REPOSITORY, type CommandRun, type WorkspaceCopy } from './support/workspace-copy.js';

const NAME = 'e2eprobe';
const PROJECT = `extension-${NAME}`;
const LIB = `libs/${PROJECT}`;
const IMPORT_PATH = `@portcullis/${PROJECT}`;
const APPS = ['authorization-server', 'protected-server', 'proxy'] as const;
const catalogue = (app: string) => `apps/${app}/src/extensions.ts`;

/**
 * The built package's extension, composed in a registry by a script that imports both packages' `dist` (the contract
 * lib's through the copy's node_modules link, which must lead to the copy's build, not the repository's).
 */
const COMPOSE = `import { ExtensionRegistry } from '@portcullis/extensions';
import { e2eprobeExtension } from './${LIB}/dist/index.js';

const registry = ExtensionRegistry.compose([e2eprobeExtension]);
console.log(JSON.stringify({
  resolved: import.meta.resolve('@portcullis/extensions'),
  list: registry.list(),
  metadata: registry.authorizationServerMetadata({ issuer: 'https://as.example.com', revision: '2026-07-28' }),
}));
`;

interface TsconfigBase {
  compilerOptions: { paths: Record<string, string[]> };
}

/** A run's exit code, with the end of its output when it failed (so a failure shows why). */
function outcome(run: CommandRun): { code: number; output: string } {
  return { code: run.code, output: run.code === 0 ? '' : run.output.slice(-12_000) };
}

describe('nx g @portcullis/workspace:extension in a copy of the workspace', () => {
  let copy: WorkspaceCopy;
  let generated: CommandRun;
  let checked: CommandRun;
  let apps: CommandRun;

  beforeAll(async () => {
    copy = await copyWorkspace('generator');
    generated = await copy.nx(
      'g',
      '@portcullis/workspace:extension',
      NAME,
      `--apps=${APPS.join(',')}`,
      '--skipInstall',
    );
    // No cache to replay from: every target runs (the copy's cache is empty; --skipNxCache says so).
    const run = ['--outputStyle=static', '--skipNxCache'];
    checked = await copy.nx('run-many', '-t', 'lint', 'typecheck', 'build', 'test', '-p', PROJECT, ...run);
    apps = await copy.nx('run-many', '-t', 'typecheck', '-p', ...APPS, ...run);
  }, 600_000);

  afterAll(async () => {
    await copy?.remove();
  });

  it('scaffolds the lib, maps it and adds it to the three catalogues in the copy, not in the repository', async () => {
    expect(outcome(generated)).toEqual({ code: 0, output: '' });
    expect(existsSync(join(copy.dir, LIB, 'project.json'))).toBe(true);
    const paths = async (dir: string) =>
      (JSON.parse(await readFile(join(dir, 'tsconfig.base.json'), 'utf8')) as TsconfigBase).compilerOptions
        .paths;
    expect((await paths(copy.dir))[IMPORT_PATH]).toEqual([`./${LIB}/src/index.ts`]);
    for (const app of APPS) {
      expect(await readFile(join(copy.dir, catalogue(app)), 'utf8')).toContain(
        `${NAME}: e2eprobeExtension,\n`,
      );
      expect(await readFile(join(REPOSITORY, catalogue(app)), 'utf8')).not.toContain(IMPORT_PATH);
    }
    expect(existsSync(join(REPOSITORY, LIB))).toBe(false);
    expect((await paths(REPOSITORY))[IMPORT_PATH]).toBeUndefined();
  });

  it('passes lint, typecheck, build and test, every test of its example spec passing', async () => {
    expect(outcome(checked)).toEqual({ code: 0, output: '' });
    for (const target of ['lint', 'typecheck', 'build', 'test']) {
      expect(checked.output).toContain(`> nx run ${PROJECT}:${target}`);
    }
    // Jest's summary of the lib's run: as many tests passed as the generated spec declares, and at least one.
    const spec = await readFile(join(copy.dir, LIB, `src/${NAME}.extension.spec.ts`), 'utf8');
    const declared = spec.match(/^\s*it\(/gm)?.length ?? 0;
    expect(declared).toBeGreaterThan(0);
    expect(checked.output).toMatch(new RegExp(`PASS +${PROJECT} +src/${NAME}\\.extension\\.spec\\.ts`));
    expect(checked.output).toMatch(new RegExp(`Tests: +${declared} passed, ${declared} total`));
  });

  it('builds an ESM package whose extension composes in an ExtensionRegistry from the built contract lib', async () => {
    const composed = await copy.node('--input-type=module', '--eval', COMPOSE);
    expect(outcome(composed)).toEqual({ code: 0, output: '' });
    const version = (
      JSON.parse(await readFile(join(copy.dir, LIB, 'package.json'), 'utf8')) as { version: string }
    ).version;
    expect(JSON.parse(composed.output)).toEqual({
      resolved: pathToFileURL(join(await realpath(copy.dir), 'libs/extensions/dist/index.js')).href,
      list: [{ id: `com.example/${NAME}`, version }],
      metadata: { [`${NAME}_supported`]: true },
    });
  });

  it('leaves the three apps whose catalogues import it typechecking', () => {
    expect(outcome(apps)).toEqual({ code: 0, output: '' });
    for (const app of APPS) expect(apps.output).toContain(`> nx run ${app}:typecheck`);
  });
});
