// RFC 8693 token exchange at the proxy, as the tests of the vault drive it: a resource server registered for it (as
// `portcullis-admin clients create --resource-server <uri> --grant token-exchange` registers one), and its request.
import { ClientRepository, generateClientSecret, hashClientSecret } from '@portcullis/authorization';
import type { ProxyFixture } from './proxy.fixture.js';

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

export interface ResourceServerClient {
  readonly clientId: string;
  readonly secret: string;
}

/**
 * A confidential client, "Notes API", that is the resource server of `resource`, with `grantTypes`, exchanging for
 * `connections` when given (else the sign-in provider's alone).
 */
export async function registerResourceServer(
  proxy: ProxyFixture,
  resource: string,
  grantTypes: string[] = [TOKEN_EXCHANGE],
  connections?: string[],
): Promise<ResourceServerClient> {
  const secret = generateClientSecret();
  const client = await new ClientRepository(proxy.prisma).create({
    clientId: `rs-${Math.random().toString(36).slice(2)}`,
    clientName: 'Notes API',
    redirectUris: [],
    grantTypes,
    responseTypes: [],
    tokenEndpointAuthMethod: 'client_secret_basic',
    applicationType: 'web',
    origin: 'preregistered',
    secretHash: hashClientSecret(secret),
    resourceServer: resource,
    ...(connections ? { metadata: { token_exchange_connections: connections } } : {}),
  });
  return { clientId: client.clientId, secret };
}

/**
 * `client` exchanges a subject token at `tokenEndpoint` (HTTP Basic): `form` over the defaults (the grant type, an
 * access token as the subject's type, the `upstream` connection as audience).
 */
export async function exchangeToken(
  tokenEndpoint: string,
  client: ResourceServerClient,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      subject_token_type: ACCESS_TOKEN_TYPE,
      audience: 'upstream',
      ...form,
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
