// A team's own extension package, as it ships one: written and packed outside the repository, depending on the
// published @portcullis/extensions, installed with npm into the folder the built authorization server reads
// `EXTENSIONS_DIR` from, and named in `EXTENSIONS` beside a built-in extension. With no edit to the apps, its metadata
// member is in the server's RFC 8414 Section 2 metadata and its claim in the RFC 9068 Section 2.2 access tokens it
// issues.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startBuiltStack, type BuiltStack } from '@portcullis/testing';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { join } from 'node:path';
import { createScratchProject, published, type ScratchProject } from './support/scratch-project.js';
import { clientCredentialsToken, createMachineClient, type MachineClient } from './support/tokens.js';

const PACKAGE = '@acme/portcullis-tenant';

/** The package's sources: an ESM package whose default export is a factory reading the team's own variable. */
const SOURCES = {
  'package.json': JSON.stringify(
    {
      name: PACKAGE,
      version: '1.0.0',
      type: 'module',
      exports: { '.': './index.js', './package.json': './package.json' },
      files: ['index.js'],
      dependencies: { '@portcullis/extensions': '^0.1.0' },
    },
    null,
    2,
  ),
  'index.js': `import { defineExtension, defineExtensionFactory } from '@portcullis/extensions';

export default defineExtensionFactory(({ env }) => {
  const tenant = env.ACME_TENANT;
  if (!tenant) throw new Error('ACME_TENANT is not set');
  return defineExtension({
    id: 'com.acme/portcullis-tenant',
    version: '1.0.0',
    authorizationServer: {
      metadata: { acme_tenant: tenant },
      tokenClaims: () => ({ acme_tenant: tenant }),
    },
  });
});
`,
};

describe('an extension package installed in EXTENSIONS_DIR and named in EXTENSIONS, in the built server', () => {
  let source: ScratchProject;
  let extensionsDir: ScratchProject;
  let stack: BuiltStack | undefined;
  let machine: MachineClient;

  beforeAll(async () => {
    source = await createScratchProject('acme-tenant', SOURCES);
    extensionsDir = await createScratchProject('extensions', {
      'package.json': JSON.stringify({ name: 'portcullis-extensions', private: true }, null, 2),
    });
    // `npm pack` makes the tarball a publish would upload; the server's folder installs it and its dependencies.
    const packed = await source.npm('pack', '--pack-destination', extensionsDir.dir, '--json');
    const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
    await extensionsDir.install(join(extensionsDir.dir, filename));
    stack = await startBuiltStack({
      authorizationServerEnv: {
        EXTENSIONS: `client-credentials,${PACKAGE}`,
        EXTENSIONS_DIR: extensionsDir.dir,
        ACME_TENANT: 'acme',
      },
      before: async (admin) => {
        machine = await createMachineClient(admin, 'Tenant reporter');
      },
    });
  }, 600_000);

  afterAll(async () => {
    await stack?.stop();
    await extensionsDir?.remove();
    await source?.remove();
  });

  it('was installed with the published @portcullis/extensions beside it, outside the repository', async () => {
    const listed = await extensionsDir.npm('ls', '--all', '--json');
    const tree = JSON.parse(listed.stdout) as {
      dependencies: Record<string, { version: string; dependencies?: Record<string, { version: string }> }>;
    };
    expect(tree.dependencies[PACKAGE]).toMatchObject({
      version: '1.0.0',
      dependencies: { '@portcullis/extensions': { version: expect.stringMatching(/^0\.1\./) } },
    });
    expect(await extensionsDir.locked('@portcullis/extensions')).toEqual(
      await published('@portcullis/extensions'),
    );
  });

  it.each(['oauth-authorization-server', 'openid-configuration'])(
    'adds its member to %s, beside the built-in extension’s grant type',
    async (document) => {
      const metadata = (await (await fetch(`${stack!.issuer}/.well-known/${document}`)).json()) as Record<
        string,
        unknown
      >;
      expect(metadata).toMatchObject({ issuer: stack!.issuer, acme_tenant: 'acme' });
      expect(metadata['grant_types_supported']).toContain('client_credentials');
    },
  );

  it('adds its claim to the access tokens the server signs', async () => {
    const token = await clientCredentialsToken(stack!.issuer, machine, {
      resource: stack!.resource,
      scope: 'notes:read',
    });
    const { jwks_uri } = (await (
      await fetch(`${stack!.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as { jwks_uri: string };
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(jwks_uri)), {
      issuer: stack!.issuer,
      audience: stack!.resource,
      typ: 'at+jwt',
    });
    expect(payload).toMatchObject({ acme_tenant: 'acme', sub: machine.client_id, scope: 'notes:read' });
  });
});
