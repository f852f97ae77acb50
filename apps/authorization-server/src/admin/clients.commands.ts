import { randomBytes } from 'node:crypto';
import { ClientRepository, generateClientSecret, GrantRepository, hashClientSecret } from '@portcullis/authorization';
import { safeUrl } from '@portcullis/metadata';
import type { AdminCommand } from './admin-command.js';

/** Spec 2.3 and 5.6.2: a redirect URI is https, or http on a loopback host; no fragment. */
const RedirectUri = safeUrl({ httpsUnlessLoopback: true });

const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'];

/** `clients create|list|delete`: pre-registered clients (RFC 6749 2). */
export const CLIENT_COMMANDS: Readonly<Record<string, AdminCommand>> = {
  async 'clients create'({ prisma, values, print, fail }) {
    const redirectUris = values['redirect-uri'] ?? [];
    const problems = redirectUris.flatMap((uri) => {
      const result = RedirectUri.safeParse(uri);
      return result.success ? [] : [`${uri}: ${result.error.issues[0]?.message ?? 'invalid'}`];
    });
    const auth = values.auth ?? 'none';
    if (!values.name || redirectUris.length === 0 || problems.length > 0) {
      return fail(`clients create needs --name and at least one valid --redirect-uri\n${problems.join('\n')}`, 2);
    }
    if (!AUTH_METHODS.includes(auth)) return fail(`--auth must be ${AUTH_METHODS.join(', ')}`, 2);
    const secret = auth === 'none' ? undefined : generateClientSecret();
    const client = await new ClientRepository(prisma).create({
      clientId: values['client-id'] ?? `pc_${randomBytes(12).toString('base64url')}`,
      clientName: values.name,
      redirectUris,
      grantTypes: values['no-refresh'] ? ['authorization_code'] : ['authorization_code', 'refresh_token'],
      tokenEndpointAuthMethod: auth,
      applicationType: redirectUris.every((uri) => uri.startsWith('https:')) ? 'web' : 'native',
      origin: 'preregistered',
      ...(secret ? { secretHash: hashClientSecret(secret) } : {}),
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
      },
    );
    return 0;
  },

  async 'clients list'({ prisma, print }) {
    const list = await new ClientRepository(prisma).list();
    print(
      list.length === 0
        ? 'no clients'
        : list
            .map((c) => `${c.clientId}\t${c.clientName ?? ''}\t${c.tokenEndpointAuthMethod}\t${c.redirectUris.join(' ')}`)
            .join('\n'),
      list.map((c) => ({
        client_id: c.clientId,
        client_name: c.clientName,
        token_endpoint_auth_method: c.tokenEndpointAuthMethod,
        redirect_uris: c.redirectUris,
        grant_types: c.grantTypes,
      })),
    );
    return 0;
  },

  async 'clients delete'({ prisma, argument, print, fail }) {
    if (!argument) return fail('clients delete needs a CLIENT_ID', 2);
    if (!(await new ClientRepository(prisma).delete(argument))) return fail(`no client ${argument}`);
    // Its refresh tokens could no longer be used anyway; its access tokens must stop introspecting as active.
    const grants = await new GrantRepository(prisma).revokeGrantsOf({ clientId: argument });
    print(`deleted client ${argument} (${grants} grant(s) revoked)`, { deleted: argument, revoked_grants: grants });
    return 0;
  },
};
