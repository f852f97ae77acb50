// The local stack on its embedded defaults: what `npm start` runs and what `npm run demo` starts when nothing is
// running. `docker/compose.yaml` runs the same apps with the same settings on PostgreSQL and Redis.

/** The enterprise identity provider's issuer and the MCP authorization server's, both on loopback. */
const ENTERPRISE_IDP = 'http://localhost:4300';
const AUTHORIZATION_SERVER = 'http://localhost:4000';

export const APPS = [
  // Loopback client ID metadata documents: the development form `npm run demo` uses (the issuer is loopback).
  // The client credentials extension (MCP SEP-1046), so `portcullis call --client-credentials` works against a
  // client made with `portcullis-admin clients create --grant client_credentials`; enterprise-managed authorization
  // (MCP SEP-990), redeeming the ID-JAGs of the local enterprise identity provider below; DPoP (MCP SEP-1932, RFC
  // 9449) offered and not required, so clients without DPoP (the official MCP client) get Bearer tokens as before.
  {
    name: 'authorization-server',
    app: 'authorization-server',
    port: 4000,
    color: 'cyan',
    env: {
      CIMD_ALLOW_LOOPBACK: 'true',
      EXTENSIONS: 'client-credentials,enterprise-managed-authorization,dpop',
      ENTERPRISE_IDPS: JSON.stringify([{ issuer: ENTERPRISE_IDP, jwks_uri: `${ENTERPRISE_IDP}/jwks` }]),
    },
  },
  // The proxy issues tokens for the protected server too; clients still see the authorization server first. The
  // extensions the authorization server composes are declared in the MCP capabilities (MCP SEP-2133). DPoP (MCP
  // SEP-1932) is accepted but not required, so Bearer-only clients keep working; its replay store is in memory here
  // (one instance), in Redis under docker/compose.yaml.
  {
    name: 'protected-server',
    app: 'protected-server',
    port: 4100,
    color: 'magenta',
    env: {
      EXTRA_AUTHORIZATION_SERVERS: 'http://localhost:4200',
      EXTENSIONS: 'client-credentials,enterprise-managed-authorization,dpop',
    },
  },
  { name: 'proxy', app: 'proxy', port: 4200, color: 'yellow', env: {} },
  // A second authorization server playing the enterprise identity provider (its own users, its own demo user,
  // its own data): it exchanges the ID tokens it issues for ID-JAGs for the authorization server above, for clients
  // named by a client ID metadata document, with at most the notes scopes.
  {
    name: 'enterprise-idp',
    app: 'authorization-server',
    port: 4300,
    color: 'green',
    env: {
      ISSUER: ENTERPRISE_IDP,
      PGLITE_DIR: '.data/enterprise-idp',
      CIMD_ALLOW_LOOPBACK: 'true',
      EXTENSIONS: 'enterprise-managed-authorization',
      ENTERPRISE_IDP_AUDIENCES: JSON.stringify([
        { audience: AUTHORIZATION_SERVER, scope: 'notes:read notes:write', metadata_document_clients: true },
      ]),
    },
  },
];
