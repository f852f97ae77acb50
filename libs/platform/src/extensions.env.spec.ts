import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineExtension, ExtensionRegistry } from '@portcullis/extensions';
import { z } from 'zod';
import { ConfigError } from './config.js';
import { composeExtensionModules, composeExtensions, extensionsEnvField } from './extensions.env.js';

const alpha = defineExtension({ id: 'com.example/alpha', version: '1.0.0' });
const beta = defineExtension({
  id: 'com.example/beta',
  version: '1.0.0',
  resourceServer: { metadata: { beta_supported: true } },
});
// Claims the same metadata member as beta: the registry refuses to compose the two.
const rival = defineExtension({
  id: 'com.example/rival',
  version: '1.0.0',
  resourceServer: { metadata: { beta_supported: false } },
});

const catalogue = { alpha, beta, rival };
const schema = z
  .object({ EXTENSIONS: extensionsEnvField(Object.keys(catalogue)), EXTENSIONS_DIR: z.string().optional() })
  .transform(composeExtensions(catalogue));

function issues(value: string): string[] {
  const result = schema.safeParse({ EXTENSIONS: value });
  if (result.success) throw new Error('the value was accepted');
  return result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
}

describe('extensionsEnvField then composeExtensions', () => {
  it('composes none when unset or blank', () => {
    expect(schema.parse({}).EXTENSIONS.list()).toEqual([]);
    expect(schema.parse({ EXTENSIONS: ' , ' }).EXTENSIONS.list()).toEqual([]);
  });

  it('composes the named extensions once each, whatever the spacing and repetition', () => {
    const registry = schema.parse({ EXTENSIONS: ' beta ,alpha,beta' }).EXTENSIONS;
    expect(registry.list().map(({ id }) => id)).toEqual(['com.example/alpha', 'com.example/beta']);
    expect(
      registry.resourceMetadata({ resource: 'https://mcp.example.com/mcp', revision: '2026-07-28' }),
    ).toEqual({ beta_supported: true });
  });

  it('keeps the names that are module specifiers for loading, in order, with the built-in names', () => {
    const config = schema.parse({ EXTENSIONS: 'alpha,@acme/tenant,./local.js' });
    expect(config.EXTENSIONS.list().map(({ id }) => id)).toEqual(['com.example/alpha']);
    expect(config.EXTENSION_MODULES).toEqual({
      specifiers: ['@acme/tenant', './local.js'],
      builtIns: ['alpha', 'beta', 'rival'],
    });
  });

  it('refuses a name that is neither built in nor a module specifier in one issue naming it and the known ones', () => {
    expect(issues('alpha,Telepathy')).toEqual([
      'EXTENSIONS names "Telepathy", which is neither a built-in extension (known: alpha, beta, rival) nor a module specifier (a package name, a ./relative or /absolute path)',
    ]);
  });

  it('refuses a set the registry cannot compose, with the registry’s reason', () => {
    const [issue, ...rest] = issues('beta,rival');
    expect(rest).toEqual([]);
    expect(issue).toMatch(/^EXTENSIONS cannot be composed: .*beta_supported/);
  });
});

describe('composeExtensionModules', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portcullis-compose-'));
    const write = async (name: string, source: string) => {
      await mkdir(join(dir, 'node_modules', name), { recursive: true });
      await writeFile(
        join(dir, 'node_modules', name, 'package.json'),
        JSON.stringify({ name, type: 'module', exports: { '.': { import: './index.js' } } }),
      );
      await writeFile(join(dir, 'node_modules', name, 'index.js'), source);
    };
    // A factory that records what it was given on the extension it returns.
    await write(
      'acme-gamma',
      `export default async (context) => ({
        id: 'com.acme/gamma',
        version: '1.0.0',
        resourceServer: { metadata: { gamma_env_frozen: Object.isFrozen(context.env), gamma_tenant: context.env.ACME_TENANT, gamma_issuer: context.issuer } },
      });\n`,
    );
    await write(
      'acme-rival',
      "export default { id: 'com.acme/rival', version: '1.0.0', resourceServer: { metadata: { beta_supported: 'mine' } } };\n",
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const options = { issuer: 'https://as.example.com', revision: '2026-07-28' };
  const metadata = (registry: ExtensionRegistry) =>
    registry.resourceMetadata({ resource: 'https://mcp.example.com/mcp', revision: '2026-07-28' });

  it('composes the modules beside the built-in extensions, each factory given a frozen copy of the environment', async () => {
    const source = { EXTENSIONS: 'beta,acme-gamma', ACME_TENANT: 'acme' };
    const config = await composeExtensionModules(
      schema.parse({ EXTENSIONS: source.EXTENSIONS, EXTENSIONS_DIR: dir }),
      source,
      options,
    );
    expect(config.EXTENSIONS.list().map(({ id }) => id)).toEqual(['com.acme/gamma', 'com.example/beta']);
    expect(metadata(config.EXTENSIONS)).toEqual({
      gamma_env_frozen: true,
      gamma_tenant: 'acme',
      gamma_issuer: 'https://as.example.com',
      beta_supported: true,
    });
    expect(Object.isFrozen(source)).toBe(false);
  });

  it('adds what the entry point passes to what EXTENSIONS names, instead of replacing it', async () => {
    const configured = schema.parse({ EXTENSIONS: 'beta', EXTENSIONS_DIR: dir });
    const added = await composeExtensionModules(
      configured,
      {},
      {
        ...options,
        add: ExtensionRegistry.compose([alpha]),
      },
    );
    expect(added.EXTENSIONS.list().map(({ id }) => id)).toEqual(['com.example/alpha', 'com.example/beta']);
    // Nothing to load and nothing to add: the configuration as it was.
    expect(await composeExtensionModules(configured, {}, options)).toBe(configured);
  });

  it('fails the boot in one line when a module conflicts with a built-in extension, or the entry point’s with either', async () => {
    const refusal = (value: string, add?: ExtensionRegistry) =>
      composeExtensionModules(
        schema.parse({ EXTENSIONS: value, EXTENSIONS_DIR: dir }),
        {},
        { ...options, add },
      ).then(
        () => undefined,
        (error: unknown) => error,
      );
    const withModule = await refusal('beta,acme-rival');
    expect(withModule).toBeInstanceOf(ConfigError);
    expect((withModule as Error).message).toMatch(
      /^invalid configuration: EXTENSIONS cannot be composed with the modules it names: .*beta_supported/,
    );
    const withEntryPoint = await refusal('beta', ExtensionRegistry.compose([rival]));
    expect((withEntryPoint as Error).message).toMatch(
      /^invalid configuration: EXTENSIONS cannot be composed with the extensions the entry point adds: .*beta_supported/,
    );
  });
});
