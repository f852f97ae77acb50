import { randomBytes } from 'node:crypto';
import {
  ClientRepository,
  DEFAULT_RESOURCES,
  generateClientSecret,
  hashClientSecret,
} from '@portcullis/authorization';
import { OAuthError, parseScope } from '@portcullis/protocol';
import { recordEvent, type AdminCommand } from './admin-command.js';
import { clientKeys } from './client-keys.js';

/**
 * Grant types an operator registers a client for with `--grant`, and the extension (`EXTENSIONS` name) that offers
 * each: grants without a redirect URI, whose clients are never self-registered.
 */
const MACHINE_GRANTS: Readonly<Record<string, string>> = {
  client_credentials: 'client-credentials',
  // MCP SEP-990: a client redeeming ID-JAGs from the enterprise's identity provider (RFC 7523 2.1).
  'urn:ietf:params:oauth:grant-type:jwt-bearer': 'enterprise-managed-authorization',
};

/** How such a client authenticates: it must be confidential (RFC 6749 4.4): a secret, or its keys (RFC 7523 2.2). */
const MACHINE_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'];

/** The form of a user id (`users.id` is a UUID): a client acting for itself must never carry one as `sub`. */
const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `clients create --grant client_credentials`: a confidential client that obtains tokens for itself with the
 * client credentials grant (RFC 6749 4.4; MCP SEP-1046, where such clients are registered out of band,
 * https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/oauth-client-credentials.mdx).
 * No redirect URI and no refresh token; a secret shown once; `--scope` becomes its registered `scope` (RFC 7591 2),
 * the most its tokens may carry. Its tokens name it as `sub`, so a client ID in the form of a user id is refused.
 */
export const createGrantClient: AdminCommand = async ({ prisma, config, values, print, fail }) => {
  const grant = values.grant ?? '';
  const auth = values.auth ?? 'client_secret_basic';
  const extension = Object.hasOwn(MACHINE_GRANTS, grant) ? MACHINE_GRANTS[grant] : undefined;
  if (!extension) return fail(`--grant must be ${Object.keys(MACHINE_GRANTS).join(' or ')}`, 2);
  if (!values.name) return fail(`clients create --grant ${grant} needs --name`, 2);
  if ((values['redirect-uri'] ?? []).length > 0 || values['no-refresh']) {
    return fail(
      `a ${grant} client takes no --redirect-uri or --no-refresh: it is never redirected and gets no refresh token`,
      2,
    );
  }
  if (!MACHINE_AUTH_METHODS.includes(auth)) {
    return fail(`a ${grant} client is confidential: --auth must be ${MACHINE_AUTH_METHODS.join(' or ')}`, 2);
  }
  const keys = clientKeys(auth, values['jwks-uri'], values['jwks-file']);
  if (typeof keys === 'string') return fail(keys, 2);
  const clientId = values['client-id'] ?? `cc_${randomBytes(12).toString('base64url')}`;
  if (USER_ID.test(clientId)) {
    return fail('--client-id must not look like a user id (a UUID): its tokens name the client as sub', 2);
  }
  let scope: string[] = [];
  try {
    scope = parseScope(values.scope);
  } catch (error) {
    return fail(`--scope: ${error instanceof OAuthError ? error.description : String(error)}`, 2);
  }
  const offered = new Set(
    (config.RESOURCES ?? DEFAULT_RESOURCES).flatMap((resource) => [
      ...resource.scopes_supported,
      ...Object.keys(resource.scope_hierarchy ?? {}),
    ]),
  );
  const unknown = scope.filter((value) => !offered.has(value));
  if (unknown.length > 0) {
    return fail(
      `--scope ${unknown.join(' ')} is not a scope of the configured resources (${[...offered].join(' ')})`,
      2,
    );
  }
  if (!config.EXTENSIONS.grantTypes().includes(grant)) {
    // Not an error: the operator may register the client before the server is configured to offer the grant.
    fail(`note: this configuration does not offer ${grant}; set EXTENSIONS=${extension} on the server`, 0);
  }
  const secret = keys ? undefined : generateClientSecret();
  const scopeText = scope.join(' ');
  // RFC 9449 5.2: the server refuses this client's token requests without a DPoP proof.
  const dpop = values['dpop-bound-access-tokens'] ? { dpop_bound_access_tokens: true } : undefined;
  const client = await new ClientRepository(prisma).create({
    clientId,
    clientName: values.name,
    redirectUris: [],
    grantTypes: [grant],
    responseTypes: [],
    tokenEndpointAuthMethod: auth,
    applicationType: 'web',
    origin: 'preregistered',
    ...(secret ? { secretHash: hashClientSecret(secret) } : {}),
    ...(scopeText ? { scope: scopeText } : {}),
    ...(scopeText || keys || dpop
      ? { metadata: { ...(scopeText ? { scope: scopeText } : {}), ...keys, ...dpop } }
      : {}),
  });
  await recordEvent(prisma, 'client.registered', {
    clientId: client.clientId,
    detail: { origin: 'preregistered', grant },
  });
  print(
    [
      `created ${grant} client ${client.clientId} (confidential${scopeText ? `, scope ${scopeText}` : ''})`,
      ...(secret ? [`client secret (shown once, store it now): ${secret}`] : []),
    ].join('\n'),
    {
      client_id: client.clientId,
      ...(secret ? { client_secret: secret } : {}),
      client_name: values.name,
      grant_types: [grant],
      token_endpoint_auth_method: auth,
      ...(scopeText ? { scope: scopeText } : {}),
      ...dpop,
    },
  );
  return 0;
};
