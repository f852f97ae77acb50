// @ts-check
// What each environment variable means, for docs/reference/environment.md, keyed by its name: the schemas say which
// app reads a variable and its default; a schema field with `.describe()` or `.meta({ description })` needs no entry
// here. `meaning` is one Markdown text, or one per app where the apps read the variable differently. `default` says
// what an app does when the variable is unset and its schema has no default of its own (the app decides elsewhere);
// a variable whose schema has a default takes that one. `seconds` shows a number default as a duration.

/**
 * @typedef {{
 *   meaning: string | Partial<Record<'authorization-server' | 'protected-server' | 'proxy', string>>,
 *   default?: string,
 *   seconds?: boolean,
 * }} Description
 */

const AS_EXTENSIONS =
  'comma-separated extensions to compose: `client-credentials` (MCP SEP-1046), `enterprise-managed-authorization` ' +
  '(SEP-990), `workload-identity` (SEP-1933), `dpop` (SEP-1932, RFC 9449), or a package in `EXTENSIONS_DIR` ' +
  '(see [extensions](../extensions.md)); any other name stops the boot; `npm start` and compose set ' +
  '`client-credentials,enterprise-managed-authorization,dpop`';

/** @type {Readonly<Record<string, Description>>} */
export const ENVIRONMENT_DESCRIPTIONS = {
  ACCESS_TOKEN_TTL: {
    meaning:
      'access token lifetime; with JWT validation a revoked access token stays valid at a resource server until it expires',
    seconds: true,
  },
  ALLOW_EMBEDDED_DATABASE: {
    meaning:
      '`true`: production on the embedded database, on purpose (production requires `DATABASE_URL` otherwise)',
  },
  ALLOW_LOOPBACK_ISSUER: {
    meaning:
      '`true`: a production instance may have an http loopback `ISSUER` (behind a local TLS terminator, say); production requires an https `ISSUER` otherwise',
  },
  ALLOWED_REDIRECT_SCHEMES: {
    meaning:
      'comma-separated private-use redirect URI schemes clients may register (RFC 8252 7.1), e.g. `cursor`; a scheme the browser handles itself stops the boot, one without a period is accepted with a warning (RFC 8252 8.4); a scheme taken out stops the clients registered with it too',
  },
  AUTHORIZATION_CODE_TTL: { meaning: 'authorization code lifetime', seconds: true },
  AUTHORIZATION_SERVER: {
    meaning:
      'the issuer whose tokens are accepted (keys discovered on first use): https, or http on a loopback host; no query, fragment, userinfo or trailing `/`; required in production',
  },
  CIMD_ALLOW_LOOPBACK: {
    meaning:
      'development only, and only with a loopback `ISSUER` (else the boot fails): client ID metadata documents on loopback, over http too',
  },
  CIMD_ENABLED: {
    meaning: '`true` or `false`: accept an https URL as `client_id` (client ID metadata documents)',
    default: 'on from `2025-11-25`',
  },
  CONNECTIONS: {
    meaning:
      'providers beyond the sign-in one that people may connect for tools: a JSON object of connection names to presets, each written with the sign-in provider\'s variables lowercased and without `UPSTREAM_`, e.g. `{"github": {"provider": "github", "client_id": "…", "client_secret": "…", "scopes": "repo read:user"}}`; see [connections](../connections.md)',
    default: 'unset: only the sign-in provider',
  },
  CONSENT_COOKIE_TTL: {
    meaning: 'how long a consent cookie lets a browser skip the consent page for one client',
    seconds: true,
  },
  COOKIE_SECRET: {
    meaning:
      "at least 32 characters (`openssl rand -base64 32`): signs the session and CSRF cookies (`__Host-` prefixed and Secure under https); on the proxy, without `KEY_ENCRYPTION_KEY`, the vault's sealing key is derived from it; required in production",
    default: 'random per process (sessions end with the process)',
  },
  CORS_ORIGINS: {
    meaning:
      "comma-separated origins as browsers send them (`https://app.example.com`, `http://localhost:6274`) whose pages may call the server: CORS on the resource's path (`/mcp`; not on the app's other routes, `/api/notes` among them), and the MCP Origin check; a value that is not an origin stops the boot",
    default: 'every loopback origin in development, none in production',
  },
  DATABASE_POOL_MIN: {
    meaning:
      "PostgreSQL connections opened at boot and kept open while idle (at most `DATABASE_POOL_SIZE`): what a burst uses without opening connections, e.g. when a balancer moves a failed peer's load to this instance",
    default: '4, or `DATABASE_POOL_SIZE` when smaller',
  },
  DATABASE_POOL_SIZE: { meaning: 'PostgreSQL connections per process' },
  DATABASE_POOL_TIMEOUT_MS: {
    meaning:
      'milliseconds a request waits for a pooled connection before it is answered 503 with `Retry-After`',
  },
  DATABASE_URL: {
    meaning:
      '`postgresql://user:password@host:port/db`, one database per app; unset means the embedded PGlite; required in production unless `ALLOW_EMBEDDED_DATABASE=true`',
    default: 'unset: embedded PGlite under `PGLITE_DIR`',
  },
  DCR_ENABLED: {
    meaning: '`false` removes `/register` and `registration_endpoint` (on under every revision)',
  },
  DCR_IDLE_CLIENT_TTL: {
    meaning:
      'seconds without a live grant, since its last authorization, after which a dynamically registered client is deleted with its dead grants',
    seconds: true,
  },
  DCR_INITIAL_ACCESS_TOKEN: {
    meaning:
      'at least 32 characters: registration then requires `Authorization: Bearer <token>` (RFC 7591 3)',
  },
  DCR_UNUSED_CLIENT_TTL: {
    meaning:
      'seconds after which the housekeeping sweep deletes a dynamically registered client that completed no authorization',
    seconds: true,
  },
  DEMO_PASSWORD: { meaning: "the development user `demo`'s password" },
  DPOP_NONCE: {
    meaning: {
      'authorization-server':
        "with `dpop`: `on` requires the server's nonce in every proof (RFC 9449 8: a first request gets 400 `use_dpop_nonce` and a `DPoP-Nonce`)",
      proxy:
        "with `dpop`: `on` requires the server's nonce in every proof (RFC 9449 8: a first request gets 400 `use_dpop_nonce` and a `DPoP-Nonce`)",
      'protected-server':
        "with `dpop`: `on` requires the server's nonce in every proof (RFC 9449 9: a first request gets 401 `use_dpop_nonce` and a `DPoP-Nonce`)",
    },
    default: '`off`',
  },
  DPOP_NONCE_SECRET: {
    meaning:
      'with `DPOP_NONCE=on`: the nonce HMAC key, base64url of at least 32 bytes, the same on every instance; without it each process makes its own (the boot log says so) and its nonces are good there only',
  },
  DPOP_PROOF_MAX_AGE: {
    meaning: "with `dpop`: seconds a proof's `iat` may be from now, either way; 1 to 300",
    default: '`60`',
  },
  DPOP_REQUIRED: {
    meaning: {
      'authorization-server':
        'with `dpop`: `true` refuses every token request without a DPoP proof (`invalid_dpop_proof`), whatever the client registered',
      proxy:
        'with `dpop`: `true` refuses every token request without a DPoP proof (`invalid_dpop_proof`), whatever the client registered',
      'protected-server':
        'with `dpop`: `true` refuses unbound tokens and every `Bearer` presentation (`dpop_bound_access_tokens_required: true`)',
    },
    default: '`false`',
  },
  ENTERPRISE_IDP_AUDIENCES: {
    meaning:
      'with `enterprise-managed-authorization`: JSON array of the authorization servers this one issues ID-JAGs for, `[{"audience": URL, "scope": "…", "clients": {…}, "metadata_document_clients": true}]`; naming `ISSUER` stops the boot',
  },
  ENTERPRISE_IDPS: {
    meaning:
      'with `enterprise-managed-authorization` (it or `ENTERPRISE_IDP_AUDIENCES` required): JSON array of trusted identity providers, `[{"issuer": URL, "jwks_uri": URL}]` or `"jwks"` inline; naming `ISSUER` stops the boot',
  },
  EXTENSIONS: {
    meaning: {
      'authorization-server': AS_EXTENSIONS,
      proxy:
        'comma-separated extensions to compose: `client-credentials` and `dpop` (with the `DPOP_*` variables), or a package in `EXTENSIONS_DIR` (see [extensions](../extensions.md)); unset by default, also in development',
      'protected-server':
        "comma-separated extensions declared in the MCP `capabilities.extensions` (`{}` each): `client-credentials` (MCP SEP-1046), `enterprise-managed-authorization` (SEP-990), `dpop` (SEP-1932, RFC 9449), or a package in `EXTENSIONS_DIR`; any other name stops the boot; `npm start` and compose set their authorization server's list plus `dpop`",
    },
  },
  EXTENSIONS_DIR: {
    meaning:
      'where the packages `EXTENSIONS` names are installed (its `node_modules`); see [extensions](../extensions.md#extensions-from-a-teams-own-package)',
    default: 'the working directory',
  },
  EXTRA_AUTHORIZATION_SERVERS: {
    meaning:
      'more accepted issuers, space-separated, listed after `AUTHORIZATION_SERVER` in the metadata (the proxy, in the development stack)',
  },
  HOST: { meaning: 'interface to listen on (`0.0.0.0` in Docker)' },
  ID_TOKEN_TTL: { meaning: 'ID token lifetime', seconds: true },
  INTROSPECTION_CLIENT_ID: {
    meaning:
      'its client ID for RFC 7662 introspection (`portcullis-admin clients create --resource-server`), and for RFC 8693 token exchange at the proxy (`--grant token-exchange`); set with `INTROSPECTION_CLIENT_SECRET`',
  },
  INTROSPECTION_CLIENT_SECRET: { meaning: "that client's secret; set with `INTROSPECTION_CLIENT_ID`" },
  ISSUER: {
    meaning:
      'the issuer, published byte for byte: https, or http on a loopback host; no query, fragment, userinfo or trailing `/`; required in production (https unless `ALLOW_LOOPBACK_ISSUER=true`)',
  },
  JWKS_CACHE_TTL: {
    meaning:
      "at most how many seconds the authorization server's key set is used before it is fetched again (less when its `Cache-Control: max-age` says so)",
    seconds: true,
  },
  JWKS_MAX_AGE: {
    meaning: '`Cache-Control: max-age` of `jwks_uri`: how long resource servers may keep the key set',
    seconds: true,
  },
  JWKS_REFETCH_COOLDOWN: {
    meaning:
      "seconds after a key set fetch during which a token under an unknown `kid` is refused (`invalid_token`) without another fetch; 0 to 300 (under 1 s counts as 1 s); at most the authorization server's `SIGNING_KEY_ACTIVATION_DELAY` minus its reload interval (Portcullis's assumes 30 s: `RESOURCE_SERVER_REFETCH_COOLDOWN`)",
    seconds: true,
  },
  KEY_ENCRYPTION_KEY: {
    meaning:
      '32 bytes, 64 hex digits or base64 (`openssl rand -base64 32`): seals private signing keys (AES-256-GCM) and, on the proxy, the token vault; required in production',
    default: 'unset: keys stored unencrypted, with a warning',
  },
  LOG_LEVEL: { meaning: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`' },
  METRICS: { meaning: '`off` removes `/metrics`' },
  METRICS_TOKEN: {
    meaning:
      '16+ characters: `/metrics` answers only `Authorization: Bearer <it>` (401 otherwise); required in production unless `METRICS=off`',
  },
  NODE_ENV: {
    meaning:
      '`development`, `production` or `test`; pretty logs only in development on a terminal; `production` refuses to boot on a development default',
  },
  PGLITE_DIR: {
    meaning: 'where the embedded database lives (relative to the working directory), without `DATABASE_URL`',
    default: '`.data/<app>`',
  },
  PORT: { meaning: 'port to listen on' },
  RATE_LIMIT_LOGIN: {
    meaning: 'sign-in form posts (`/login`, `/account/login`) per minute per client address',
  },
  RATE_LIMIT_REGISTER: { meaning: '`/register` requests per minute per client address' },
  RATE_LIMIT_TOKEN: { meaning: '`/token` and `/revoke` requests per minute per client address' },
  REDIS_URL: {
    meaning: {
      'authorization-server':
        'Redis shared by the instances for rate-limit counters: one server (`redis://`, `rediss://`) or the sentinels watching one (`redis+sentinel://host:26379,host:26379/master-name`), followed through a failover; required in production unless `SINGLE_INSTANCE=true`',
      proxy:
        'Redis shared by the instances for rate-limit counters: one server (`redis://`, `rediss://`) or the sentinels watching one (`redis+sentinel://host:26379,host:26379/master-name`), followed through a failover; required in production unless `SINGLE_INSTANCE=true`',
      'protected-server':
        "with `dpop`: Redis shared by every instance for the proofs' `jti`s, one server (`redis://`, `rediss://`) or the sentinels watching one (`redis+sentinel://host:26379,host:26379/master-name`); without it they are kept in this process's memory (one instance only); required in production with `dpop` unless `SINGLE_INSTANCE=true`",
    },
  },
  REFRESH_TOKEN_ABSOLUTE_TTL: {
    meaning: 'a refresh family dies this long after the authorization',
    seconds: true,
  },
  REFRESH_TOKEN_IDLE_TTL: { meaning: 'a refresh family dies when unused this long', seconds: true },
  AUTHORIZATION_CODE_REUSE_GRACE: {
    meaning:
      'seconds, at most 60 (0: strict, RFC 6749 4.1.2): an authorization code presented again within this window of its redemption by the same client, with the same redirect URI, code verifier, resource and DPoP key, while its grant stands and the refresh token it issued is unused, gets the very response the redemption got (no new tokens): a retry whose first answer was lost; anything else is a replay and revokes the grant',
  },
  REFRESH_TOKEN_REUSE_GRACE: {
    meaning:
      'seconds, at most 60 (0: strict): a rotated-out refresh token presented again within this window by the same client, for the same resource, scope and DPoP key, while its successor is unused, gets the very response its first use got (no new tokens); after it, or once the successor was used, it is reuse and revokes the family',
  },
  RESOURCE_SERVER_REFETCH_COOLDOWN: {
    meaning:
      "the longest refetch cooldown of the resource servers verifying these tokens (their `JWKS_REFETCH_COOLDOWN`, jose's `cooldownDuration`), 0 to 300: it enters the default activation delay and its least value",
    seconds: true,
  },
  RESOURCE_URI: {
    meaning:
      'canonical URI of the MCP endpoint: the PRM `resource`, the only accepted `aud`; required in production',
  },
  RESOURCES: {
    meaning:
      'JSON `[{ "uri", "name"?, "scopes_supported", "scope_hierarchy"? }]`: the protected resources tokens are issued for; a scope named `profile` or `email` stops the boot; required in production',
    default:
      'the local protected server: `http://localhost:4100/mcp` with `notes:read`, `notes:write`, `notes` -> both',
  },
  SECURITY_EVENT_RETENTION: {
    meaning:
      'how long security events are kept (`portcullis-admin events`; see [operating](../operating.md#security-events))',
    seconds: true,
  },
  SEED_DEMO_USER: {
    meaning:
      '`auto` seeds the development user `demo` in development on the embedded database; `true` or `false` decides',
  },
  SESSION_TTL: {
    meaning: 'login session; without `offline_access` a refresh family ends with it',
    seconds: true,
  },
  SHUTDOWN_TIMEOUT_MS: {
    meaning: 'milliseconds SIGTERM/SIGINT may take to drain requests before the process exits 1',
  },
  SIGNING_KEY_ACTIVATION_DELAY: {
    meaning:
      "seconds between `keys rotate` and the new key's first signature (published meanwhile); at least max(`JWKS_MAX_AGE`, `RESOURCE_SERVER_REFETCH_COOLDOWN`) + `SIGNING_KEY_RELOAD_INTERVAL`, else the boot fails; see [signing keys](../operating.md#signing-keys)",
    default: '`JWKS_MAX_AGE` + reload interval + cooldown (360 s)',
  },
  SIGNING_KEY_RELOAD_INTERVAL: {
    meaning:
      'how often each instance re-reads the signing keys (a rotation reaches it within this); a retired key stays published this much longer',
    seconds: true,
  },
  SINGLE_INSTANCE: {
    meaning:
      '`true`: production as one instance, whose in-process state (rate limits, DPoP proofs) needs no Redis',
  },
  SPEC_REVISION: {
    meaning: {
      'authorization-server':
        '`2025-06-18`, `2025-11-25` or `2026-07-28`: client ID metadata documents are on by default from `2025-11-25`, `/register` answers carry a `Deprecation` header under `2026-07-28`',
      proxy:
        '`2025-06-18`, `2025-11-25` or `2026-07-28`: client ID metadata documents are on by default from `2025-11-25`, `/register` answers carry a `Deprecation` header under `2026-07-28`',
      'protected-server':
        '`2025-06-18`, `2025-11-25` or `2026-07-28`; `2025-06-18` leaves `scope` out of challenges',
    },
  },
  TOKEN_CACHE_TTL: {
    meaning:
      "seconds an accepted token's verdict is kept (never past its `exp`); `0` keeps none; with introspection, a token revoked at the authorization server is refused within this time",
    seconds: true,
  },
  TOKEN_VALIDATION: {
    meaning: '`auto` (JWTs locally, opaque tokens by introspection), `jwt` or `introspection`',
  },
  TRUST_PROXY: {
    meaning:
      "the reverse proxies (load balancers) in front of the app, as comma-separated IP addresses or CIDR ranges: a request from one of them counts as coming from the address its `X-Forwarded-For` names (rate limits, logs, security events); anyone else's `X-Forwarded-*` headers are ignored. Unset: every request comes from its connection's peer",
  },
  UPSTREAM_ALLOWED: {
    meaning:
      'who may sign in: JSON rules (`subjects`, `email_domains`, `github_organizations`, `github_teams`, `google_hosted_domains`, `entra_tenants`), see [who may sign in](../proxy.md#who-may-sign-in)',
    default: 'unset: everyone the upstream signs in',
  },
  UPSTREAM_API_URL: {
    meaning: '`github`: the REST API, `{UPSTREAM_BASE_URL}/api/v3` for GitHub Enterprise Server',
    default: '`https://api.github.com`',
  },
  UPSTREAM_AUDIENCE: {
    meaning: '`auth0`: an API identifier, sent as `audience` in every authorization request',
  },
  UPSTREAM_AUTHORIZATION_ENDPOINT: {
    meaning: '`oauth2` (required): the authorization endpoint, https or loopback http',
  },
  UPSTREAM_AUTHORIZATION_SERVER: {
    meaning: "`okta`: a custom authorization server's id (`aus…`), `default`, or `org` for the org's own",
    default: '`default`',
  },
  UPSTREAM_BASE_URL: {
    meaning:
      "the preset's base URL: `github` the host of the OAuth endpoints (GitHub Enterprise Server's URL); `google` the issuer; `entra` the cloud's sign-in host; `okta` the org URL (required); `auth0` the tenant's domain or custom domain as a URL (required); `keycloak` the server URL, with `/auth` for Keycloak 16 and older (required); a trailing `/` is dropped",
    default:
      '`https://github.com` (`github`), `https://accounts.google.com` (`google`), `https://login.microsoftonline.com` (`entra`)',
  },
  UPSTREAM_CLIENT_ID: {
    meaning: "the proxy's static client at the upstream",
    default: '`portcullis-proxy` in development; required in production',
  },
  UPSTREAM_CLIENT_SECRET: {
    meaning:
      'its secret (`client_secret_basic` where supported, else `client_secret_post`); unset: a public client',
    default: 'the development secret with the development upstream',
  },
  UPSTREAM_CONNECTION: {
    meaning:
      "the connection whose token `UPSTREAM_USER_API_URL` takes (the exchange's `audience`): `upstream`, the provider people sign in with at the proxy, or a name of its `CONNECTIONS` (`github`)",
  },
  UPSTREAM_ISSUER: {
    meaning:
      "`oidc`, `oauth2`: the upstream's issuer, exactly (a trailing `/` kept); `oidc` discovers its metadata from it (RFC 8414 3.3), `oauth2` checks an RFC 9207 `iss` against it",
    default: '`http://localhost:4000` in development; required in production with `oidc`',
  },
  UPSTREAM_PROVIDER: {
    meaning:
      "the preset: `oidc` (discovery), `github`, `google`, `entra`, `okta`, `auth0`, `keycloak`, `oauth2`; another preset's variable stops the boot; see [providers](../proxy.md#providers)",
  },
  UPSTREAM_REALM: { meaning: '`keycloak` (required): the realm whose people sign in' },
  UPSTREAM_SCOPES: {
    meaning:
      'space-separated scopes asked of the upstream; `openid profile email` passes name and email on; must include `openid` with the OpenID Connect presets',
    default: "`openid` (each preset's own: see its page; `oauth2`: none)",
  },
  UPSTREAM_SUBJECT_CLAIM: {
    meaning:
      "`oauth2`: the member of the UserInfo endpoint's JSON answer that names the person (`id` for most REST user APIs)",
    default: '`sub`',
  },
  UPSTREAM_TENANT: {
    meaning: '`entra` (required): the tenant ID (a GUID), `organizations`, `common` or `consumers`',
  },
  UPSTREAM_TIMEOUT_MS: {
    meaning: 'upper bound, in milliseconds, on each upstream operation (discovery, code exchange, UserInfo)',
  },
  UPSTREAM_TOKEN_ENDPOINT: { meaning: '`oauth2` (required): the token endpoint, https or loopback http' },
  UPSTREAM_TOKEN_ENDPOINT_AUTH_METHOD: {
    meaning:
      '`oauth2`: how the client secret goes to the token endpoint, `client_secret_basic` or `client_secret_post`',
    default: '`client_secret_basic`',
  },
  UPSTREAM_USER_API_URL: {
    meaning:
      "a provider API naming the user of a token there (`https://api.github.com/user`, an OpenID provider's UserInfo): with it, the tool `upstream_whoami` calls it as the user, with the user's token from the proxy's vault (see [connections](../connections.md)); needs the introspection credentials",
  },
  UPSTREAM_USERINFO_ENDPOINT: {
    meaning: '`oauth2` (required): the UserInfo endpoint, https or loopback http',
  },
  WORKLOAD_IDENTITY_ISSUERS: {
    meaning:
      'required with `workload-identity`, refused without it: JSON array of trusted workload issuers, `[{"issuer": URL, "jwks_uri": URL | "jwks", "audiences"?: […], "max_lifetime"?: s, "subjects": [{"subject", "client_id", "scope"}]}]`; naming `ISSUER` stops the boot',
  },
};
