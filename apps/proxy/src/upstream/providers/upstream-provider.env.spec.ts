import { describe, expect, it } from '@jest/globals';
import { AppModule } from '../../app.module.js';
import { envSchema } from '../../env.schema.js';
import { upstreamProviderOptions } from './upstream-provider.env.js';

const issuesOf = (env: Record<string, string>) => {
  const result = envSchema.safeParse(env);
  return result.success
    ? []
    : result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
};

const GITHUB = {
  UPSTREAM_PROVIDER: 'github',
  UPSTREAM_CLIENT_ID: 'Ov23li0',
  UPSTREAM_CLIENT_SECRET: 's3cret',
};
const GOOGLE = {
  UPSTREAM_PROVIDER: 'google',
  UPSTREAM_CLIENT_ID: 'g.apps',
  UPSTREAM_CLIENT_SECRET: 's3cret',
};
const ENTRA = { UPSTREAM_PROVIDER: 'entra', UPSTREAM_CLIENT_ID: '00000000-0000-0000-0000-00000000c11e' };
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const OAUTH2 = {
  UPSTREAM_PROVIDER: 'oauth2',
  UPSTREAM_CLIENT_ID: 'proxy',
  UPSTREAM_AUTHORIZATION_ENDPOINT: 'https://login.example.com/oauth/authorize',
  UPSTREAM_TOKEN_ENDPOINT: 'https://login.example.com/oauth/token',
  UPSTREAM_USERINFO_ENDPOINT: 'https://api.example.com/v1/me',
};

describe('UPSTREAM_PROVIDER and its variables', () => {
  it('defaults to oidc with the openid scope, as before presets existed', () => {
    const env = envSchema.parse({ UPSTREAM_PROVIDER: '' });
    expect(env.UPSTREAM_PROVIDER).toBe('oidc');
    expect(env.UPSTREAM_SCOPES).toEqual(['openid']);
    expect(upstreamProviderOptions(env)).toEqual({ provider: { name: 'oidc' } });
  });

  it('refuses a provider it does not offer, naming the ones it accepts', () => {
    for (const name of ['GitHub', 'saml', 'okta ']) {
      expect(issuesOf({ UPSTREAM_PROVIDER: name })).toEqual([
        {
          path: 'UPSTREAM_PROVIDER',
          message: 'must be one of oidc, github, google, entra, okta, auth0, keycloak, oauth2',
        },
      ]);
    }
  });

  it('stops the boot on such a provider with a message naming the variable and the accepted values', async () => {
    await expect(AppModule.configure({ UPSTREAM_PROVIDER: 'ping' })).rejects.toMatchObject({
      name: 'ConfigError',
      message:
        'invalid configuration: UPSTREAM_PROVIDER must be one of oidc, github, google, entra, okta, auth0, keycloak, ' +
        'oauth2',
    });
  });

  it("points okta at the org's default authorization server, or the one named, or the org's own", () => {
    const okta = {
      UPSTREAM_PROVIDER: 'okta',
      UPSTREAM_CLIENT_ID: '0oa1',
      UPSTREAM_BASE_URL: 'https://acme.okta.com/',
    };
    const env = envSchema.parse(okta);
    expect(env.UPSTREAM_SCOPES).toEqual(['openid', 'profile', 'email', 'offline_access']);
    expect(upstreamProviderOptions(env)).toEqual({
      provider: { name: 'okta', baseUrl: 'https://acme.okta.com', authorizationServer: 'default' },
      issuer: 'https://acme.okta.com/oauth2/default',
    });
    const custom = envSchema.parse({ ...okta, UPSTREAM_AUTHORIZATION_SERVER: 'aus1a2b3c4d5e6f7g8h9' });
    expect(upstreamProviderOptions(custom).issuer).toBe('https://acme.okta.com/oauth2/aus1a2b3c4d5e6f7g8h9');
    const org = envSchema.parse({ ...okta, UPSTREAM_AUTHORIZATION_SERVER: 'org' });
    expect(upstreamProviderOptions(org).issuer).toBe('https://acme.okta.com');
    expect(issuesOf({ UPSTREAM_PROVIDER: 'okta' }).map((issue) => issue.path)).toEqual([
      'UPSTREAM_CLIENT_ID',
      'UPSTREAM_BASE_URL',
    ]);
    for (const server of ['../default', 'a/b', 'default?x']) {
      expect(issuesOf({ ...okta, UPSTREAM_AUTHORIZATION_SERVER: server }).map((issue) => issue.path)).toEqual(
        ['UPSTREAM_AUTHORIZATION_SERVER'],
      );
    }
  });

  it("points auth0 at the tenant's issuer with its trailing slash, and sends UPSTREAM_AUDIENCE only when set", () => {
    const auth0 = {
      UPSTREAM_PROVIDER: 'auth0',
      UPSTREAM_CLIENT_ID: 'k3y',
      UPSTREAM_BASE_URL: 'https://acme.us.auth0.com',
    };
    const env = envSchema.parse(auth0);
    expect(env.UPSTREAM_SCOPES).toEqual(['openid', 'profile', 'email', 'offline_access']);
    expect(upstreamProviderOptions(env)).toEqual({
      provider: { name: 'auth0', baseUrl: 'https://acme.us.auth0.com' },
      issuer: 'https://acme.us.auth0.com/',
    });
    // Written as Auth0's dashboard shows the issuer, with its slash: the same issuer, not two slashes.
    const slashed = envSchema.parse({ ...auth0, UPSTREAM_BASE_URL: 'https://acme.us.auth0.com/' });
    expect(upstreamProviderOptions(slashed).issuer).toBe('https://acme.us.auth0.com/');
    const api = envSchema.parse({ ...auth0, UPSTREAM_AUDIENCE: 'https://api.acme.example' });
    expect(upstreamProviderOptions(api).provider).toEqual({
      name: 'auth0',
      baseUrl: 'https://acme.us.auth0.com',
      audience: 'https://api.acme.example',
    });
    expect(issuesOf({ ...auth0, UPSTREAM_AUDIENCE: 'two words' }).map((issue) => issue.path)).toEqual([
      'UPSTREAM_AUDIENCE',
    ]);
    expect(issuesOf({ ...auth0, UPSTREAM_SCOPES: 'profile email' }).map((issue) => issue.path)).toEqual([
      'UPSTREAM_SCOPES',
    ]);
  });

  it("points keycloak at the realm's issuer under the server URL, and requires the realm", () => {
    const keycloak = {
      UPSTREAM_PROVIDER: 'keycloak',
      UPSTREAM_CLIENT_ID: 'portcullis-proxy',
      UPSTREAM_BASE_URL: 'https://sso.acme.example/auth',
      UPSTREAM_REALM: 'staff',
    };
    const env = envSchema.parse(keycloak);
    expect(env.UPSTREAM_SCOPES).toEqual(['openid', 'profile', 'email']);
    expect(upstreamProviderOptions(env)).toEqual({
      provider: { name: 'keycloak', baseUrl: 'https://sso.acme.example/auth', realm: 'staff' },
      issuer: 'https://sso.acme.example/auth/realms/staff',
    });
    expect(issuesOf({ ...keycloak, UPSTREAM_REALM: '' })).toEqual([
      { path: 'UPSTREAM_REALM', message: 'is required with UPSTREAM_PROVIDER=keycloak' },
    ]);
    for (const realm of ['..', 'a/b', 'staff%2F..']) {
      expect(issuesOf({ ...keycloak, UPSTREAM_REALM: realm }).map((issue) => issue.path)).toEqual([
        'UPSTREAM_REALM',
      ]);
    }
    expect(issuesOf({ ...keycloak, UPSTREAM_TENANT: 'common' })).toEqual([
      {
        path: 'UPSTREAM_TENANT',
        message: 'is not read with UPSTREAM_PROVIDER=keycloak (only with entra): remove it',
      },
    ]);
  });

  it('points github at github.com and api.github.com, asking read:user and user:email', () => {
    const env = envSchema.parse(GITHUB);
    expect(env.UPSTREAM_SCOPES).toEqual(['read:user', 'user:email']);
    expect(upstreamProviderOptions(env)).toEqual({
      provider: { name: 'github', baseUrl: 'https://github.com', apiUrl: 'https://api.github.com' },
      issuer: 'https://github.com',
    });
  });

  it('finds the API of a GitHub Enterprise Server under {base}/api/v3, unless UPSTREAM_API_URL says otherwise', () => {
    const server = envSchema.parse({ ...GITHUB, UPSTREAM_BASE_URL: 'https://github.corp.example' });
    expect(upstreamProviderOptions(server).provider).toEqual({
      name: 'github',
      baseUrl: 'https://github.corp.example',
      apiUrl: 'https://github.corp.example/api/v3',
    });
    const explicit = envSchema.parse({
      ...GITHUB,
      UPSTREAM_BASE_URL: 'https://github.corp.example',
      UPSTREAM_API_URL: 'https://api.github.corp.example',
    });
    expect(upstreamProviderOptions(explicit).provider).toMatchObject({
      apiUrl: 'https://api.github.corp.example',
    });
  });

  it('points google at accounts.google.com, asking openid email profile, with its client and secret', () => {
    const env = envSchema.parse(GOOGLE);
    expect(env.UPSTREAM_SCOPES).toEqual(['openid', 'email', 'profile']);
    expect(upstreamProviderOptions(env)).toEqual({
      provider: { name: 'google', baseUrl: 'https://accounts.google.com' },
      issuer: 'https://accounts.google.com',
    });
    expect(issuesOf({ UPSTREAM_PROVIDER: 'google' }).map((issue) => issue.path)).toEqual([
      'UPSTREAM_CLIENT_ID',
      'UPSTREAM_CLIENT_SECRET',
    ]);
    expect(issuesOf({ ...GOOGLE, UPSTREAM_SCOPES: 'email profile' })).toEqual([
      {
        path: 'UPSTREAM_SCOPES',
        message: 'must include openid with UPSTREAM_PROVIDER=google: its ID token names the person',
      },
    ]);
  });

  it("points entra at the tenant's v2.0 issuer, asking offline_access, and requires the tenant", () => {
    const env = envSchema.parse({ ...ENTRA, UPSTREAM_TENANT: TENANT.toUpperCase() });
    expect(env.UPSTREAM_SCOPES).toEqual(['openid', 'profile', 'email', 'offline_access']);
    expect(upstreamProviderOptions(env)).toEqual({
      provider: { name: 'entra', baseUrl: 'https://login.microsoftonline.com', tenant: TENANT },
      issuer: `https://login.microsoftonline.com/${TENANT}/v2.0`,
    });
    const cloud = envSchema.parse({
      ...ENTRA,
      UPSTREAM_TENANT: 'organizations',
      UPSTREAM_BASE_URL: 'https://login.microsoftonline.us',
    });
    expect(upstreamProviderOptions(cloud).issuer).toBe('https://login.microsoftonline.us/organizations/v2.0');
    expect(issuesOf(ENTRA)).toEqual([
      { path: 'UPSTREAM_TENANT', message: 'is required with UPSTREAM_PROVIDER=entra' },
    ]);
    for (const tenant of ['contoso.onmicrosoft.com', 'common/../x', '72f988bf']) {
      expect(issuesOf({ ...ENTRA, UPSTREAM_TENANT: tenant }).map((issue) => issue.path)).toContain(
        'UPSTREAM_TENANT',
      );
    }
  });

  it('reads Google hosted domains and Entra tenants only with their provider', () => {
    const google = envSchema.parse({
      ...GOOGLE,
      UPSTREAM_ALLOWED: '{"google_hosted_domains":["Acme.example"]}',
    });
    expect(google.UPSTREAM_ALLOWED?.googleHostedDomains).toEqual(['acme.example']);
    expect(issuesOf({ ...GITHUB, UPSTREAM_ALLOWED: '{"google_hosted_domains":["acme.example"]}' })).toEqual([
      {
        path: 'UPSTREAM_ALLOWED',
        message: 'names Google hosted domains, which only UPSTREAM_PROVIDER=google can check',
      },
    ]);
    expect(
      issuesOf({ ...GOOGLE, UPSTREAM_ALLOWED: JSON.stringify({ entra_tenants: [TENANT] }) }).map(
        (issue) => issue.message,
      ),
    ).toEqual(['names Entra tenants, which only UPSTREAM_PROVIDER=entra can check']);
  });

  it('requires the client and its secret for github, in development too', () => {
    expect(issuesOf({ UPSTREAM_PROVIDER: 'github' })).toEqual([
      { path: 'UPSTREAM_CLIENT_ID', message: 'is required with UPSTREAM_PROVIDER=github' },
      { path: 'UPSTREAM_CLIENT_SECRET', message: 'is required with UPSTREAM_PROVIDER=github' },
    ]);
  });

  it("refuses another provider's variable rather than ignoring it", () => {
    expect(issuesOf({ ...GITHUB, UPSTREAM_ISSUER: 'https://idp.example.com' })).toEqual([
      {
        path: 'UPSTREAM_ISSUER',
        message: 'is not read with UPSTREAM_PROVIDER=github (only with oidc or oauth2): remove it',
      },
    ]);
    expect(issuesOf({ UPSTREAM_BASE_URL: 'https://github.com' })).toEqual([
      {
        path: 'UPSTREAM_BASE_URL',
        message:
          'is not read with UPSTREAM_PROVIDER=oidc (only with github or google or entra or okta or auth0 or ' +
          'keycloak): remove it',
      },
    ]);
  });

  it('refuses a plain-http or malformed base URL or endpoint off loopback', () => {
    expect(issuesOf({ ...GITHUB, UPSTREAM_BASE_URL: 'http://github.corp.example' })).toHaveLength(1);
    expect(issuesOf({ ...GITHUB, UPSTREAM_BASE_URL: 'http://127.0.0.1:8080' })).toEqual([]);
    expect(issuesOf({ ...OAUTH2, UPSTREAM_TOKEN_ENDPOINT: 'http://login.example.com/token' })).toEqual([
      { path: 'UPSTREAM_TOKEN_ENDPOINT', message: 'must be https (http only on a loopback host)' },
    ]);
    expect(issuesOf({ ...OAUTH2, UPSTREAM_USERINFO_ENDPOINT: 'https://api.example.com/me#x' })).toHaveLength(
      1,
    );
    expect(issuesOf({ ...OAUTH2, UPSTREAM_SUBJECT_CLAIM: 'a b' })).toHaveLength(1);
  });

  it('takes oauth2 endpoints as given, keys its users within the authorization endpoint origin, subject sub', () => {
    const env = envSchema.parse(OAUTH2);
    expect(env.UPSTREAM_SCOPES).toEqual([]);
    expect(upstreamProviderOptions(env)).toEqual({
      provider: {
        name: 'oauth2',
        authorizationEndpoint: OAUTH2.UPSTREAM_AUTHORIZATION_ENDPOINT,
        tokenEndpoint: OAUTH2.UPSTREAM_TOKEN_ENDPOINT,
        userinfoEndpoint: OAUTH2.UPSTREAM_USERINFO_ENDPOINT,
        subjectClaim: 'sub',
        tokenEndpointAuthMethod: 'client_secret_basic',
      },
      issuer: 'https://login.example.com',
    });
    const named = envSchema.parse({
      ...OAUTH2,
      UPSTREAM_ISSUER: 'https://login.example.com/tenant',
      UPSTREAM_SUBJECT_CLAIM: 'id',
    });
    expect(upstreamProviderOptions(named)).toMatchObject({
      provider: { subjectClaim: 'id' },
      issuer: 'https://login.example.com/tenant',
    });
    expect(
      issuesOf({ UPSTREAM_PROVIDER: 'oauth2', UPSTREAM_CLIENT_ID: 'proxy' }).map((issue) => issue.path),
    ).toEqual(['UPSTREAM_AUTHORIZATION_ENDPOINT', 'UPSTREAM_TOKEN_ENDPOINT', 'UPSTREAM_USERINFO_ENDPOINT']);
  });

  it('still requires UPSTREAM_ISSUER in production for oidc only', () => {
    const production = {
      NODE_ENV: 'production',
      COOKIE_SECRET: 'c'.repeat(43),
      KEY_ENCRYPTION_KEY: 'k'.repeat(43),
    };
    expect(issuesOf({ ...production }).map((issue) => issue.path)).toContain('UPSTREAM_ISSUER');
    expect(issuesOf({ ...production, ...GITHUB }).map((issue) => issue.path)).not.toContain(
      'UPSTREAM_ISSUER',
    );
  });
});
