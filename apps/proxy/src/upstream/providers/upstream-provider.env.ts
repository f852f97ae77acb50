// Rules kept: a provider's variables are set only with that provider, so a leftover one never goes unnoticed; each
// URL is https (http only on a loopback host, RFC 8252 8.3 and RFC 9700 2.6 for development), without userinfo or
// fragment (RFC 6749 3.1: an endpoint may carry a query, never a fragment).
import { IssuerEnvSchema } from '@portcullis/authorization';
import { isLoopbackHost, issuerIdentifierProblem } from '@portcullis/protocol';
import { z } from 'zod';
import { AllowedUsersEnvSchema, asksGithubMembership, type AllowedUsers } from '../allowed/allowed-users.js';
import { auth0Issuer } from './auth0.provider.js';
import { ENTRA_BASE_URL, ENTRA_TENANT, entraIssuer } from './entra.provider.js';
import { GITHUB_BASE_URL, githubApiUrl } from './github.provider.js';
import { GOOGLE_BASE_URL } from './google.provider.js';
import { KEYCLOAK_REALM, keycloakIssuer } from './keycloak.provider.js';
import { OKTA_AUTHORIZATION_SERVER, OKTA_ORG_AUTHORIZATION_SERVER, oktaIssuer } from './okta.provider.js';
import { UPSTREAM_PROVIDER_NAMES, type UpstreamProviderOptions } from './upstream-provider.js';

/** An empty variable counts as unset. */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

/** Someone else's issuer identifier: as the project's own (`IssuerEnvSchema`), but a terminating `/` is kept. */
export const UpstreamIssuerSchema = z.string().superRefine((value, context) => {
  const problem = issuerIdentifierProblem(value, { terminatingSlash: true });
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

/** An endpoint URL: absolute, https (http on loopback), no userinfo or fragment. */
const EndpointUrlSchema = z.string().superRefine((value, context) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    context.addIssue({ code: 'custom', message: 'must be an absolute URL' });
    return;
  }
  if (url.hash || value.includes('#') || url.username || url.password) {
    context.addIssue({ code: 'custom', message: 'must not have a fragment or userinfo' });
  } else if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    context.addIssue({ code: 'custom', message: 'must be https (http only on a loopback host)' });
  }
});

/** The variables of `UPSTREAM_PROVIDER` and its presets; see docs/providers/. */
export const upstreamProviderEnvFields = {
  UPSTREAM_PROVIDER: z.preprocess(
    unsetIfEmpty,
    z
      .enum(UPSTREAM_PROVIDER_NAMES, {
        error: `must be one of ${UPSTREAM_PROVIDER_NAMES.join(', ')}`,
      })
      .default('oidc'),
  ),
  /**
   * The provider's base URL. `github`: the host of the OAuth endpoints (GitHub Enterprise Server's URL), default
   * https://github.com; `google`: the issuer, default https://accounts.google.com; `entra`: the cloud's sign-in host,
   * default https://login.microsoftonline.com; `okta`: the org URL; `auth0`: the tenant's domain (or custom domain)
   * as a URL; `keycloak`: the server URL (ending with `/auth` for Keycloak 16 and older). A trailing `/` is dropped.
   */
  UPSTREAM_BASE_URL: z.preprocess(
    (value) => (typeof value === 'string' ? unsetIfEmpty(value.replace(/\/+$/, '')) : value),
    IssuerEnvSchema.optional(),
  ),
  /** `okta`: the authorization server: `default` (the default), a custom one's id, or `org` for the org's own. */
  UPSTREAM_AUTHORIZATION_SERVER: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(
        OKTA_AUTHORIZATION_SERVER,
        `must be an authorization server id (default, aus...) or ${OKTA_ORG_AUTHORIZATION_SERVER}`,
      )
      .optional(),
  ),
  /** `auth0`: the API identifier sent as `audience`, for access tokens to that API. */
  UPSTREAM_AUDIENCE: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .max(2048)
      .regex(/^[\x21-\x7e]+$/, 'must be an API identifier (printable characters, no spaces)')
      .optional(),
  ),
  /** `keycloak`: the realm whose people sign in. */
  UPSTREAM_REALM: z.preprocess(
    unsetIfEmpty,
    z.string().regex(KEYCLOAK_REALM, 'must be a realm name (letters, digits, ".", "_", "-")').optional(),
  ),
  /** `entra`: the tenant whose people sign in: its ID (a GUID), `organizations`, `common` or `consumers`. */
  UPSTREAM_TENANT: z.preprocess(
    (value) => (typeof value === 'string' ? unsetIfEmpty(value.toLowerCase()) : value),
    z
      .string()
      .regex(ENTRA_TENANT, 'must be a tenant ID (a GUID), organizations, common or consumers')
      .optional(),
  ),
  /** `github`: the REST API; default https://api.github.com, or `{UPSTREAM_BASE_URL}/api/v3`. */
  UPSTREAM_API_URL: z.preprocess(unsetIfEmpty, IssuerEnvSchema.optional()),
  UPSTREAM_AUTHORIZATION_ENDPOINT: z.preprocess(unsetIfEmpty, EndpointUrlSchema.optional()),
  UPSTREAM_TOKEN_ENDPOINT: z.preprocess(unsetIfEmpty, EndpointUrlSchema.optional()),
  UPSTREAM_USERINFO_ENDPOINT: z.preprocess(unsetIfEmpty, EndpointUrlSchema.optional()),
  /** Who may sign in: JSON rules (see docs/proxy.md); unset, everyone the upstream signs in. */
  UPSTREAM_ALLOWED: z.preprocess(unsetIfEmpty, AllowedUsersEnvSchema.optional()),
  /** `oauth2`: how the client secret goes to the token endpoint (RFC 6749 2.3.1); default HTTP Basic. */
  UPSTREAM_TOKEN_ENDPOINT_AUTH_METHOD: z.preprocess(
    unsetIfEmpty,
    z
      .enum(['client_secret_basic', 'client_secret_post'], {
        error: 'must be client_secret_basic or client_secret_post',
      })
      .optional(),
  ),
  /** `oauth2`: the UserInfo answer's member naming the person (a JSON member name, not a path). */
  UPSTREAM_SUBJECT_CLAIM: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be the name of a member of the UserInfo answer')
      .optional(),
  ),
};

type ProviderEnv = {
  UPSTREAM_PROVIDER: (typeof UPSTREAM_PROVIDER_NAMES)[number];
  UPSTREAM_ISSUER?: string | undefined;
  UPSTREAM_CLIENT_ID?: string | undefined;
  UPSTREAM_CLIENT_SECRET?: string | undefined;
  UPSTREAM_BASE_URL?: string | undefined;
  UPSTREAM_API_URL?: string | undefined;
  UPSTREAM_TENANT?: string | undefined;
  UPSTREAM_AUTHORIZATION_SERVER?: string | undefined;
  UPSTREAM_AUDIENCE?: string | undefined;
  UPSTREAM_REALM?: string | undefined;
  UPSTREAM_AUTHORIZATION_ENDPOINT?: string | undefined;
  UPSTREAM_TOKEN_ENDPOINT?: string | undefined;
  UPSTREAM_USERINFO_ENDPOINT?: string | undefined;
  UPSTREAM_SUBJECT_CLAIM?: string | undefined;
  UPSTREAM_TOKEN_ENDPOINT_AUTH_METHOD?: 'client_secret_basic' | 'client_secret_post' | undefined;
  UPSTREAM_ALLOWED?: AllowedUsers | undefined;
  UPSTREAM_SCOPES?: readonly string[] | undefined;
};

/** Which variables each provider reads beyond the client's; any other provider's is refused. */
const PROVIDER_VARIABLES: Readonly<Record<ProviderEnv['UPSTREAM_PROVIDER'], readonly (keyof ProviderEnv)[]>> =
  {
    oidc: ['UPSTREAM_ISSUER'],
    github: ['UPSTREAM_BASE_URL', 'UPSTREAM_API_URL'],
    google: ['UPSTREAM_BASE_URL'],
    entra: ['UPSTREAM_BASE_URL', 'UPSTREAM_TENANT'],
    okta: ['UPSTREAM_BASE_URL', 'UPSTREAM_AUTHORIZATION_SERVER'],
    auth0: ['UPSTREAM_BASE_URL', 'UPSTREAM_AUDIENCE'],
    keycloak: ['UPSTREAM_BASE_URL', 'UPSTREAM_REALM'],
    oauth2: [
      'UPSTREAM_ISSUER',
      'UPSTREAM_AUTHORIZATION_ENDPOINT',
      'UPSTREAM_TOKEN_ENDPOINT',
      'UPSTREAM_USERINFO_ENDPOINT',
      'UPSTREAM_SUBJECT_CLAIM',
      'UPSTREAM_TOKEN_ENDPOINT_AUTH_METHOD',
    ],
  };

/** What each provider needs whatever `NODE_ENV` (the `oidc` development default is the local server). */
const REQUIRED: Readonly<Record<ProviderEnv['UPSTREAM_PROVIDER'], readonly (keyof ProviderEnv)[]>> = {
  oidc: [],
  // GitHub's token endpoint asks for the client secret of OAuth Apps and GitHub Apps alike, PKCE or not.
  github: ['UPSTREAM_CLIENT_ID', 'UPSTREAM_CLIENT_SECRET'],
  // Google's token endpoint authenticates a web application by its client secret.
  google: ['UPSTREAM_CLIENT_ID', 'UPSTREAM_CLIENT_SECRET'],
  // A public client (no secret) is an Entra app registration with the "Mobile and desktop" platform.
  entra: ['UPSTREAM_CLIENT_ID', 'UPSTREAM_TENANT'],
  // Each is a tenant of its own, so its URL is required; a client secret only for a confidential application (a
  // single-page or native application signs in with PKCE alone).
  okta: ['UPSTREAM_CLIENT_ID', 'UPSTREAM_BASE_URL'],
  auth0: ['UPSTREAM_CLIENT_ID', 'UPSTREAM_BASE_URL'],
  keycloak: ['UPSTREAM_CLIENT_ID', 'UPSTREAM_BASE_URL', 'UPSTREAM_REALM'],
  oauth2: [
    'UPSTREAM_CLIENT_ID',
    'UPSTREAM_AUTHORIZATION_ENDPOINT',
    'UPSTREAM_TOKEN_ENDPOINT',
    'UPSTREAM_USERINFO_ENDPOINT',
  ],
};

/** Refuses a variable of another provider, and a missing one this provider needs, naming the variable. */
export function checkUpstreamProviderEnv(env: ProviderEnv, context: z.RefinementCtx): void {
  const provider = env.UPSTREAM_PROVIDER;
  const mine = PROVIDER_VARIABLES[provider];
  const everyProvidersVariables = new Set(Object.values(PROVIDER_VARIABLES).flat());
  for (const name of everyProvidersVariables) {
    if (env[name] === undefined || mine.includes(name)) continue;
    const readers = UPSTREAM_PROVIDER_NAMES.filter((each) => PROVIDER_VARIABLES[each].includes(name));
    context.addIssue({
      code: 'custom',
      path: [name],
      message: `is not read with UPSTREAM_PROVIDER=${provider} (only with ${readers.join(' or ')}): remove it`,
    });
  }
  checkAllowedUsers(env, context);
  checkOpenIdScope(env, context);
  for (const name of REQUIRED[provider]) {
    if (env[name] === undefined) {
      context.addIssue({
        code: 'custom',
        path: [name],
        message: `is required with UPSTREAM_PROVIDER=${provider}`,
      });
    }
  }
}

/** Presets that are OpenID Connect sign-ins: the ID token names the person, so `openid` must be asked. */
const OPENID_PROVIDERS: readonly string[] = ['google', 'entra', 'okta', 'auth0', 'keycloak'];

function checkOpenIdScope(env: ProviderEnv, context: z.RefinementCtx): void {
  if (!OPENID_PROVIDERS.includes(env.UPSTREAM_PROVIDER) || !Array.isArray(env.UPSTREAM_SCOPES)) return;
  if (!env.UPSTREAM_SCOPES.includes('openid')) {
    context.addIssue({
      code: 'custom',
      path: ['UPSTREAM_SCOPES'],
      message: `must include openid with UPSTREAM_PROVIDER=${env.UPSTREAM_PROVIDER}: its ID token names the person`,
    });
  }
}

/** Scopes under which GitHub answers organization and team membership (`read:org`, or wider). */
const GITHUB_ORG_SCOPES = ['read:org', 'write:org', 'admin:org'];

/** GitHub membership rules need the github provider, and a scope that lets GitHub answer them. */
function checkAllowedUsers(env: ProviderEnv, context: z.RefinementCtx): void {
  // Also run beside an issue in UPSTREAM_ALLOWED itself, on its unparsed value: read defensively.
  const rules = env.UPSTREAM_ALLOWED as Partial<AllowedUsers> | undefined;
  const names = (list: unknown) => Array.isArray(list) && list.length > 0;
  for (const [list, provider, rule] of [
    [rules?.googleHostedDomains, 'google', 'Google hosted domains'],
    [rules?.entraTenants, 'entra', 'Entra tenants'],
  ] as const) {
    if (names(list) && env.UPSTREAM_PROVIDER !== provider) {
      context.addIssue({
        code: 'custom',
        path: ['UPSTREAM_ALLOWED'],
        message: `names ${rule}, which only UPSTREAM_PROVIDER=${provider} can check`,
      });
    }
  }
  if (!asksGithubMembership(env.UPSTREAM_ALLOWED)) return;
  if (env.UPSTREAM_PROVIDER !== 'github') {
    context.addIssue({
      code: 'custom',
      path: ['UPSTREAM_ALLOWED'],
      message: `names GitHub organizations or teams, which only UPSTREAM_PROVIDER=github can check`,
    });
  } else if (
    Array.isArray(env.UPSTREAM_SCOPES) &&
    !env.UPSTREAM_SCOPES.some((scope) => GITHUB_ORG_SCOPES.includes(scope))
  ) {
    context.addIssue({
      code: 'custom',
      path: ['UPSTREAM_SCOPES'],
      message: 'must include read:org: UPSTREAM_ALLOWED names GitHub organizations or teams',
    });
  }
}

/** The scopes asked when `UPSTREAM_SCOPES` is unset: the provider's, and `read:org` where GitHub rules need it. */
export function defaultUpstreamScopes(env: ProviderEnv): string[] {
  const scopes = [...DEFAULT_UPSTREAM_SCOPES[env.UPSTREAM_PROVIDER]];
  return asksGithubMembership(env.UPSTREAM_ALLOWED) ? [...scopes, 'read:org'] : scopes;
}

/** The scopes asked of each provider when `UPSTREAM_SCOPES` is unset. */
const DEFAULT_UPSTREAM_SCOPES: Readonly<Record<ProviderEnv['UPSTREAM_PROVIDER'], readonly string[]>> = {
  oidc: ['openid'],
  // The profile (`GET /user`) and the verified addresses (`GET /user/emails`).
  github: ['read:user', 'user:email'],
  // The ID token with the person's name and address (and `hd`).
  google: ['openid', 'email', 'profile'],
  // `profile` brings `oid` into the ID token, `offline_access` a refresh token (Microsoft identity platform,
  // "Scopes and permissions", OpenID Connect scopes).
  entra: ['openid', 'profile', 'email', 'offline_access'],
  // A refresh token only with `offline_access` at Okta and Auth0; Keycloak issues one at every sign-in (its
  // `offline_access` asks an offline token, which outlives the person's session there).
  okta: ['openid', 'profile', 'email', 'offline_access'],
  auth0: ['openid', 'profile', 'email', 'offline_access'],
  keycloak: ['openid', 'profile', 'email'],
  // The server's default scopes (RFC 6749 3.3).
  oauth2: [],
};

/** The provider preset and its settings, from a checked configuration. */
export function upstreamProviderOptions(env: ProviderEnv): {
  provider: UpstreamProviderOptions;
  /**
   * The issuer, or what stands for it: the base URL (github, google), the tenant's `{base}/{tenant}/v2.0` (entra),
   * the authorization server's (okta), the tenant's `{base}/` (auth0), the realm's (keycloak), the authorization
   * endpoint's origin (oauth2).
   */
  issuer?: string;
} {
  switch (env.UPSTREAM_PROVIDER) {
    case 'oidc':
      return { provider: { name: 'oidc' }, ...(env.UPSTREAM_ISSUER ? { issuer: env.UPSTREAM_ISSUER } : {}) };
    case 'github': {
      const baseUrl = env.UPSTREAM_BASE_URL ?? GITHUB_BASE_URL;
      return {
        provider: { name: 'github', baseUrl, apiUrl: env.UPSTREAM_API_URL ?? githubApiUrl(baseUrl) },
        issuer: baseUrl,
      };
    }
    case 'google': {
      const baseUrl = env.UPSTREAM_BASE_URL ?? GOOGLE_BASE_URL;
      return { provider: { name: 'google', baseUrl }, issuer: baseUrl };
    }
    case 'entra': {
      const baseUrl = (env.UPSTREAM_BASE_URL ?? ENTRA_BASE_URL).replace(/\/+$/, '');
      const tenant = env.UPSTREAM_TENANT;
      if (tenant === undefined) throw new Error('UPSTREAM_TENANT is required with UPSTREAM_PROVIDER=entra');
      return { provider: { name: 'entra', baseUrl, tenant }, issuer: entraIssuer(baseUrl, tenant) };
    }
    case 'okta': {
      const baseUrl = required(env, 'UPSTREAM_BASE_URL');
      const authorizationServer = env.UPSTREAM_AUTHORIZATION_SERVER ?? 'default';
      return {
        provider: { name: 'okta', baseUrl, authorizationServer },
        issuer: oktaIssuer(baseUrl, authorizationServer),
      };
    }
    case 'auth0': {
      const baseUrl = required(env, 'UPSTREAM_BASE_URL');
      return {
        provider: {
          name: 'auth0',
          baseUrl,
          ...(env.UPSTREAM_AUDIENCE === undefined ? {} : { audience: env.UPSTREAM_AUDIENCE }),
        },
        issuer: auth0Issuer(baseUrl),
      };
    }
    case 'keycloak': {
      const baseUrl = required(env, 'UPSTREAM_BASE_URL');
      const realm = required(env, 'UPSTREAM_REALM');
      return { provider: { name: 'keycloak', baseUrl, realm }, issuer: keycloakIssuer(baseUrl, realm) };
    }
    case 'oauth2': {
      const authorizationEndpoint = required(env, 'UPSTREAM_AUTHORIZATION_ENDPOINT');
      return {
        provider: {
          name: 'oauth2',
          authorizationEndpoint,
          tokenEndpoint: required(env, 'UPSTREAM_TOKEN_ENDPOINT'),
          userinfoEndpoint: required(env, 'UPSTREAM_USERINFO_ENDPOINT'),
          subjectClaim: env.UPSTREAM_SUBJECT_CLAIM ?? 'sub',
          tokenEndpointAuthMethod: env.UPSTREAM_TOKEN_ENDPOINT_AUTH_METHOD ?? 'client_secret_basic',
        },
        issuer: env.UPSTREAM_ISSUER ?? new URL(authorizationEndpoint).origin,
      };
    }
  }
}

/** A variable {@link checkUpstreamProviderEnv} requires, so present in a parsed configuration. */
function required(
  env: ProviderEnv,
  name:
    | 'UPSTREAM_AUTHORIZATION_ENDPOINT'
    | 'UPSTREAM_TOKEN_ENDPOINT'
    | 'UPSTREAM_USERINFO_ENDPOINT'
    | 'UPSTREAM_BASE_URL'
    | 'UPSTREAM_REALM',
): string {
  const value = env[name];
  if (value === undefined)
    throw new Error(`${name} is required with UPSTREAM_PROVIDER=${env.UPSTREAM_PROVIDER}`);
  return value;
}
