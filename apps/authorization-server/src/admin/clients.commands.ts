import { randomBytes } from 'node:crypto';
import {
  ClientRepository,
  DEFAULT_RESOURCES,
  generateClientSecret,
  GrantRepository,
  hashClientSecret,
} from '@portcullis/authorization';
import { safeUrl } from '@portcullis/metadata';
import { UnitOfWork } from '@portcullis/persistence';
import { canonicalizeResourceUri, CONNECTION_NAME } from '@portcullis/protocol';
import { recordEvent, type AdminCommand } from './admin-command.js';
import { clientKeys } from './client-keys.js';
import { createGrantClient } from './grant-client.command.js';

/** MCP "Communication Security": a redirect URI is https, or http on a loopback host; no fragment. */
const RedirectUri = safeUrl({ httpsUnlessLoopback: true });

const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'];

/** RFC 8693 token exchange, which the proxy's token endpoint takes from resource servers registered for it. */
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/**
 * `clients create --resource-server`: a confidential client that is the resource server of one configured resource.
 * It takes no part in authorization (no redirect URIs); it authenticates to `/introspect`, which describes to it only
 * tokens issued for that resource (RFC 7662 4). With `--grant token-exchange` it may also exchange such a token at the
 * proxy for the user's upstream token (RFC 8693), its only grant, of the connections `--connections` names (kept in
 * its metadata as `token_exchange_connections`; default `upstream`, the sign-in provider's).
 */
const createResourceServer: AdminCommand = async ({ prisma, config, values, print, fail }) => {
  const requested = values['resource-server'] ?? '';
  const auth = values.auth ?? 'client_secret_basic';
  if (!values.name) return fail('clients create --resource-server needs --name', 2);
  if (
    (values['redirect-uri'] ?? []).length > 0 ||
    values['no-refresh'] ||
    values['dpop-bound-access-tokens']
  ) {
    return fail(
      'a resource server takes no --redirect-uri, --no-refresh or --dpop-bound-access-tokens: it introspects, it is never authorized',
      2,
    );
  }
  if (auth !== 'client_secret_basic' && auth !== 'client_secret_post') {
    return fail(
      'a resource server authenticates: --auth must be client_secret_basic or client_secret_post',
      2,
    );
  }
  const grant = values.grant;
  if (grant !== undefined && grant !== 'token-exchange' && grant !== TOKEN_EXCHANGE) {
    return fail(`a resource server's only grant is --grant token-exchange (${TOKEN_EXCHANGE})`, 2);
  }
  const connections =
    values.connections === undefined
      ? undefined
      : [...new Set(values.connections.split(',').map((name) => name.trim()))];
  if (connections !== undefined && grant === undefined) {
    return fail(
      '--connections names what a resource server may exchange for: it needs --grant token-exchange',
      2,
    );
  }
  const badName = connections?.find((name) => !CONNECTION_NAME.test(name));
  if (badName !== undefined || connections?.length === 0) {
    return fail(
      `--connections ${values.connections} must be connection names (lowercase letters, digits, -), comma-separated`,
      2,
    );
  }
  let resource: string;
  try {
    resource = canonicalizeResourceUri(requested);
  } catch {
    return fail(`--resource-server ${requested} is not a resource URI (RFC 8707 2)`, 2);
  }
  const configured = (config.RESOURCES ?? DEFAULT_RESOURCES).map((entry) => entry.uri);
  if (!configured.includes(resource)) {
    return fail(
      `--resource-server ${resource} is not a resource this server issues tokens for (RESOURCES: ${configured.join(', ')})`,
      2,
    );
  }
  const secret = generateClientSecret();
  const client = await new ClientRepository(prisma).create({
    clientId: values['client-id'] ?? `rs_${randomBytes(12).toString('base64url')}`,
    clientName: values.name,
    redirectUris: [],
    grantTypes: grant === undefined ? [] : [TOKEN_EXCHANGE],
    responseTypes: [],
    tokenEndpointAuthMethod: auth,
    applicationType: 'web',
    origin: 'preregistered',
    secretHash: hashClientSecret(secret),
    resourceServer: resource,
    ...(connections ? { metadata: { token_exchange_connections: connections } } : {}),
  });
  await recordEvent(prisma, 'client.registered', {
    clientId: client.clientId,
    detail: { origin: 'preregistered' },
  });
  print(
    [
      `created resource server ${client.clientId} for ${resource} (set INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET)` +
        (grant === undefined
          ? ''
          : `; it may exchange its users' tokens for their tokens of ${(connections ?? ['upstream']).join(', ')} at the proxy`),
      `client secret (shown once, store it now): ${secret}`,
    ].join('\n'),
    {
      client_id: client.clientId,
      client_secret: secret,
      client_name: values.name,
      token_endpoint_auth_method: auth,
      resource_server: resource,
      grant_types: grant === undefined ? [] : [TOKEN_EXCHANGE],
      ...(grant === undefined ? {} : { token_exchange_connections: connections ?? ['upstream'] }),
    },
  );
  return 0;
};

/** `clients create|list|delete`: pre-registered clients (RFC 6749 2). */
export const CLIENT_COMMANDS: Readonly<Record<string, AdminCommand>> = {
  async 'clients create'(context) {
    if (context.values['resource-server'] !== undefined) return createResourceServer(context);
    if (context.values.grant !== undefined) return createGrantClient(context);
    const { prisma, values, print, fail } = context;
    const redirectUris = values['redirect-uri'] ?? [];
    const problems = redirectUris.flatMap((uri) => {
      const result = RedirectUri.safeParse(uri);
      return result.success ? [] : [`${uri}: ${result.error.issues[0]?.message ?? 'invalid'}`];
    });
    const auth = values.auth ?? 'none';
    if (!values.name || redirectUris.length === 0 || problems.length > 0) {
      return fail(
        `clients create needs --name and at least one valid --redirect-uri\n${problems.join('\n')}`,
        2,
      );
    }
    if (!AUTH_METHODS.includes(auth)) return fail(`--auth must be ${AUTH_METHODS.join(', ')}`, 2);
    const keys = clientKeys(auth, values['jwks-uri'], values['jwks-file']);
    if (typeof keys === 'string') return fail(keys, 2);
    const secret =
      auth === 'client_secret_basic' || auth === 'client_secret_post' ? generateClientSecret() : undefined;
    // RFC 9449 5.2: the server refuses this client's token requests without a DPoP proof.
    const dpop = values['dpop-bound-access-tokens'] ? { dpop_bound_access_tokens: true } : undefined;
    const client = await new ClientRepository(prisma).create({
      clientId: values['client-id'] ?? `pc_${randomBytes(12).toString('base64url')}`,
      clientName: values.name,
      redirectUris,
      grantTypes: values['no-refresh'] ? ['authorization_code'] : ['authorization_code', 'refresh_token'],
      tokenEndpointAuthMethod: auth,
      applicationType: redirectUris.every((uri) => uri.startsWith('https:')) ? 'web' : 'native',
      origin: 'preregistered',
      ...(secret ? { secretHash: hashClientSecret(secret) } : {}),
      ...(keys || dpop ? { metadata: { ...keys, ...dpop } } : {}),
    });
    await recordEvent(prisma, 'client.registered', {
      clientId: client.clientId,
      detail: { origin: 'preregistered' },
    });
    print(
      [
        `created client ${client.clientId} (${auth === 'none' ? 'public' : 'confidential'})`,
        ...(secret ? [`client secret (shown once, store it now): ${secret}`] : []),
      ].join('\n'),
      {
        client_id: client.clientId,
        ...(secret ? { client_secret: secret } : {}),
        client_name: values.name,
        redirect_uris: redirectUris,
        token_endpoint_auth_method: auth,
        ...dpop,
      },
    );
    return 0;
  },

  async 'clients list'({ prisma, print }) {
    const list = await new ClientRepository(prisma).listRegistrations();
    print(
      list.length === 0
        ? 'no clients'
        : list
            .map(({ client: c, origin, createdAt, lastUsedAt }) =>
              [
                c.clientId,
                c.clientName ?? '',
                c.tokenEndpointAuthMethod,
                c.resourceServer ? `resource server of ${c.resourceServer}` : c.redirectUris.join(' '),
                origin,
                `created ${createdAt.toISOString()}`,
                lastUsedAt ? `last used ${lastUsedAt.toISOString()}` : 'never used',
              ].join('\t'),
            )
            .join('\n'),
      list.map(({ client: c, origin, createdAt, lastUsedAt }) => ({
        client_id: c.clientId,
        client_name: c.clientName,
        token_endpoint_auth_method: c.tokenEndpointAuthMethod,
        redirect_uris: c.redirectUris,
        grant_types: c.grantTypes,
        ...(c.resourceServer ? { resource_server: c.resourceServer } : {}),
        origin,
        created_at: createdAt.toISOString(),
        last_used_at: lastUsedAt?.toISOString() ?? null,
      })),
    );
    return 0;
  },

  async 'clients delete'({ prisma, argument, print, fail }) {
    if (!argument) return fail('clients delete needs a CLIENT_ID', 2);
    if (!(await new ClientRepository(prisma).delete(argument))) return fail(`no client ${argument}`);
    // Its refresh tokens could no longer be used anyway; its access tokens must stop introspecting as active.
    const grants = await new GrantRepository(new UnitOfWork(prisma)).revokeGrantsOf({ clientId: argument });
    await recordEvent(prisma, 'client.deleted', { clientId: argument });
    print(`deleted client ${argument} (${grants} grant(s) revoked)`, {
      deleted: argument,
      revoked_grants: grants,
    });
    return 0;
  },
};
