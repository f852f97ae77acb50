// Extensions from a team's own package: EXTENSIONS names the package besides the built-in extensions, the server
// imports it from EXTENSIONS_DIR and composes its default export (an extension, or a factory given the environment,
// the issuer and the revision) under the registry's checks (MCP extensions overview: extensions are composable). Over
// real HTTP: its RFC 8414 section 2 metadata member and its RFC 9068 section 2.2 access token claim. A module that
// cannot be composed stops the boot with one configuration line naming it; an entry point's own extensions are added
// to the configured ones, never in their place.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { defineExtension, ExtensionRegistry } from '@portcullis/extensions';
import { ConfigError } from '@portcullis/platform';
import {
  HeadlessUserAgent,
  installExtensionPackages,
  spawnApp,
  type ExtensionsDirectory,
} from '@portcullis/testing';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { AppModule } from '../../src/app.module.js';
import {
  authorizationRequest,
  authorize,
  redeem,
  RESOURCE,
  startAuthorizationServer,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

const TENANT_PACKAGE = '@acme/portcullis-tenant';
const BUILT_INS = 'client-credentials, dpop, enterprise-managed-authorization, workload-identity';

/**
 * What a team publishes: an ESM-only package (its `exports` has the `import` condition alone, so `require` cannot
 * resolve it), whose default export is a factory reading the team's own variable.
 */
const tenantPackage = {
  name: TENANT_PACKAGE,
  manifest: {
    type: 'module',
    exports: {
      '.': { types: './dist/index.d.ts', import: './dist/index.js' },
      './package.json': './package.json',
    },
    peerDependencies: { '@portcullis/extensions': '^0.1.0' },
  },
  files: {
    'dist/index.js': `export default ({ env, issuer, revision }) => {
  const tenants = (env.ACME_TENANTS ?? '').split(',').filter(Boolean);
  if (tenants.length === 0) throw new Error('ACME_TENANTS is not set');
  return {
    id: 'com.acme/portcullis-tenant',
    version: '1.2.0',
    authorizationServer: {
      metadata: { acme_tenants_supported: tenants, acme_configured_for: issuer + ' ' + revision },
      tokenClaims: () => ({ acme_tenant: tenants[0] }),
    },
  };
};
`,
  },
};

/** Packages that are installed but are no extension: a string, and a factory that fails. */
const brokenPackages = [
  { name: 'acme-not-an-extension', files: { 'index.js': "export default 'com.acme/tenant';\n" } },
  {
    name: 'acme-failing-factory',
    files: { 'index.js': "export default () => { throw new Error('ACME_LICENSE is not set'); };\n" },
  },
];

let extensions: ExtensionsDirectory;
beforeAll(async () => {
  extensions = await installExtensionPackages([tenantPackage, ...brokenPackages]);
});
afterAll(async () => {
  await extensions?.remove();
});

describe('an extension package named in EXTENSIONS and installed in EXTENSIONS_DIR, in the live server', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({
      env: {
        EXTENSIONS: `client-credentials,${TENANT_PACKAGE}`,
        EXTENSIONS_DIR: extensions.dir,
        ACME_TENANTS: 'acme,globex',
      },
    });
  });
  afterAll(async () => {
    await as?.close();
  });

  it.each(['oauth-authorization-server', 'openid-configuration'])(
    'publishes the package’s metadata member in %s beside the built-in extension’s grant type',
    async (document) => {
      const metadata = (await (await fetch(`${as.issuer}/.well-known/${document}`)).json()) as Record<
        string,
        unknown
      >;
      expect(metadata['acme_tenants_supported']).toEqual(['acme', 'globex']);
      // The factory was given the server's issuer and revision.
      expect(metadata['acme_configured_for']).toBe(`${as.issuer} 2026-07-28`);
      expect(metadata['grant_types_supported']).toContain('client_credentials');
      expect(metadata['issuer']).toBe(as.issuer);
    },
  );

  it('adds the package’s claim to the access token of an authorization code, beside the registered claims', async () => {
    const client = await as.createClient();
    const user = await as.createUser();
    const request = authorizationRequest(as, client);
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const response = await redeem(as, client, callback, request);
    expect(response.status).toBe(200);
    const { payload } = await jwtVerify(
      response.body['access_token'] as string,
      createRemoteJWKSet(new URL(`${as.issuer}/jwks`)),
      { issuer: as.issuer, audience: RESOURCE, typ: 'at+jwt' },
    );
    expect(payload).toMatchObject({ acme_tenant: 'acme', sub: user.id, client_id: client.clientId });
  });
});

describe('EXTENSIONS naming a module that cannot be composed', () => {
  /** The configuration error booting with these variables rejects with. */
  async function refusal(env: Record<string, string>): Promise<string> {
    const error = await AppModule.configure({ ...env, EXTENSIONS_DIR: extensions.dir }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ConfigError);
    const { message } = error as Error;
    expect(message).not.toContain('\n');
    return message;
  }

  it('stops the boot on a module that is not installed, naming it, the built-in names and the directory', async () => {
    expect(await refusal({ EXTENSIONS: 'client-credentials,@acme/portcullis-absent' })).toBe(
      `invalid configuration: EXTENSIONS names @acme/portcullis-absent, which is neither a built-in extension (known: ${BUILT_INS}) nor a module installed in ${extensions.dir} (EXTENSIONS_DIR)`,
    );
  });

  it.each([
    [
      'whose default export is a string',
      'acme-not-an-extension',
      'its default export is a string, neither an extension nor a function that returns one.',
    ],
    ['whose factory fails', 'acme-failing-factory', 'its factory failed: ACME_LICENSE is not set'],
  ])('stops the boot on a module %s, naming it and why', async (_what, name, reason) => {
    const message = await refusal({ EXTENSIONS: `client-credentials,${name}` });
    expect(message).toMatch(
      new RegExp(`^invalid configuration: EXTENSIONS module ${name} \\(.*\\) is not an extension: `),
    );
    expect(message.endsWith(reason)).toBe(true);
  });

  it('stops the built server’s process with that one line and exit code 1', async () => {
    const app = spawnApp(fileURLToPath(new URL('../../dist/main.js', import.meta.url)), {
      EXTENSIONS: 'acme-not-an-extension',
      EXTENSIONS_DIR: extensions.dir,
    });
    expect(await app.exited).toBe(1);
    expect(app.stderr()).toMatch(
      /^authorization-server: invalid configuration: EXTENSIONS module acme-not-an-extension \(.*\) is not an extension: its default export is a string, neither an extension nor a function that returns one\.\n$/,
    );
    expect(app.stdout()).not.toContain('listening on');
  });
});

describe('extensions a custom entry point passes, in the live server', () => {
  const hostExtension = defineExtension({
    id: 'com.example/entry-point',
    version: '1.0.0',
    authorizationServer: { metadata: { entry_point_supported: true } },
  });
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({
      env: {
        EXTENSIONS: `client-credentials,${TENANT_PACKAGE}`,
        EXTENSIONS_DIR: extensions.dir,
        ACME_TENANTS: 'acme',
      },
      appModule: {
        configure: (env, overrides) =>
          AppModule.configure(env, overrides, { extensions: ExtensionRegistry.compose([hostExtension]) }),
      },
    });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('adds them to what EXTENSIONS names: the built-in grant type and the package stay in the metadata', async () => {
    const metadata = (await (
      await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata['entry_point_supported']).toBe(true);
    expect(metadata['grant_types_supported']).toEqual([
      'authorization_code',
      'refresh_token',
      'client_credentials',
    ]);
    expect(metadata['acme_tenants_supported']).toEqual(['acme']);
  });
});
