/**
 * Dynamic client registration: the request builder and the response processor (oauth4webapi's pair shape).
 *
 * Rules kept here:
 * - RFC 7591 Section 3.1: a POST of the client metadata as a JSON object; Section 3.2.1: a 201 with the client
 *   information; Section 3.2.2: an error response (`invalid_redirect_uri`, `invalid_client_metadata`, ...).
 * - MCP 2026-07-28 "Application Type and Redirect URI Constraints" (feature `dcr-application-type`): 2026-07-28
 *   sends `application_type`, `native` when every redirect URI is loopback or a private-use scheme (RFC 8252
 *   Sections 7.1 and 7.3), else `web`.
 * - MCP 2026-07-28 "Refresh Tokens" and RFC 7591 Section 2 (`grant_types`): a client that wants refresh tokens
 *   registers the `refresh_token` grant type.
 * - RFC 7591 Section 3.2.1 makes `client_secret_expires_at` REQUIRED with a secret; a server that omits it is
 *   read as "never expires" (0) rather than refused, since nothing in the flow depends on it.
 * - RFC 7591 Section 2 and RFC 7523 Section 2.2: a client configured with a private key registers
 *   `token_endpoint_auth_method: private_key_jwt` and its public key in `jwks` (never the private members).
 */
import {
  ClientRegistrationResponseSchema,
  OAuthErrorResponseSchema,
  type ClientMetadata,
} from '@portcullis/metadata';
import { isLoopbackHost } from '@portcullis/protocol';
import { PortcullisError } from '../errors/portcullis-error.js';
import { readJsonObject, type FetchLike } from '../http/http.js';
import type { ClientAssertionKey } from '../client-auth/client-assertion-key.js';
import type { TokenEndpointAuthMethod } from '../store/token-store.js';

/**
 * What the client says about itself when it registers.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
export interface ClientRegistrationMetadata {
  readonly clientName: string;
  readonly clientUri?: string;
  readonly softwareId?: string;
  readonly softwareVersion?: string;
  /**
   * The key to authenticate with (`private_key_jwt`): registered as `jwks`, and used for every token request of
   * the registered client.
   */
  readonly privateKey?: ClientAssertionKey;
}

/**
 * A registration that succeeded.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.2.1
 */
export interface RegisteredClientInformation {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly clientSecretExpiresAt?: number;
  /** The method the server registered, when it said. */
  readonly tokenEndpointAuthMethod?: string;
  readonly redirectUris: readonly string[];
}

/**
 * The OpenID Connect `application_type` for a set of redirect URIs: `native` when all are loopback http or a
 * private-use scheme, `web` otherwise.
 *
 * @see https://openid.net/specs/openid-connect-registration-1_0.html#ClientMetadata
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7
 */
export function applicationTypeFor(redirectUris: readonly string[]): 'native' | 'web' {
  const native = redirectUris.every((uri) => {
    const url = new URL(uri);
    if (url.protocol === 'https:') return false;
    if (url.protocol === 'http:') return isLoopbackHost(url.hostname);
    return true;
  });
  return native && redirectUris.length > 0 ? 'native' : 'web';
}

/**
 * The registration request body (RFC 7591 Section 2).
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.1
 */
export function registrationRequestBody(input: {
  metadata: ClientRegistrationMetadata;
  redirectUris: readonly string[];
  wantsRefreshTokens: boolean;
  sendApplicationType: boolean;
}): ClientMetadata {
  const { metadata, redirectUris } = input;
  return {
    client_name: metadata.clientName,
    ...(metadata.clientUri === undefined ? {} : { client_uri: metadata.clientUri }),
    ...(metadata.softwareId === undefined ? {} : { software_id: metadata.softwareId }),
    ...(metadata.softwareVersion === undefined ? {} : { software_version: metadata.softwareVersion }),
    redirect_uris: [...redirectUris],
    grant_types: input.wantsRefreshTokens ? ['authorization_code', 'refresh_token'] : ['authorization_code'],
    response_types: ['code'],
    ...(metadata.privateKey === undefined
      ? { token_endpoint_auth_method: 'none' }
      : {
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [{ ...metadata.privateKey.publicJwk }] },
        }),
    ...(input.sendApplicationType ? { application_type: applicationTypeFor(redirectUris) } : {}),
  };
}

/**
 * POSTs a registration request.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.1
 */
export async function registrationRequest(
  fetchFn: FetchLike,
  registrationEndpoint: string,
  body: ClientMetadata,
): Promise<Response> {
  try {
    return await fetchFn(registrationEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      redirect: 'manual',
    });
  } catch (cause) {
    throw new PortcullisError(
      'registration_failed',
      `Could not reach the registration endpoint ${registrationEndpoint}.`,
      { url: registrationEndpoint },
      { cause },
    );
  }
}

/**
 * Reads a registration response: the client information, or `registration_failed` with the server's error.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.2
 */
export async function processRegistrationResponse(
  response: Response,
  registrationEndpoint: string,
): Promise<RegisteredClientInformation> {
  const body = await readJsonObject(response);
  if (response.status !== 201 && response.status !== 200) {
    const error = OAuthErrorResponseSchema.safeParse(body);
    const reason = error.success
      ? `${error.data.error}${error.data.error_description === undefined ? '' : `: ${error.data.error_description}`}`
      : `HTTP ${response.status}`;
    throw new PortcullisError(
      'registration_failed',
      `The authorization server refused the registration (${reason}).`,
      { url: registrationEndpoint, status: response.status },
      error.success
        ? {
            authorizationServerError: {
              error: error.data.error,
              errorDescription: error.data.error_description,
            },
          }
        : {},
    );
  }
  const withExpiry =
    body !== undefined &&
    typeof body['client_secret'] === 'string' &&
    body['client_secret_expires_at'] === undefined
      ? { ...body, client_secret_expires_at: 0 }
      : body;
  const parsed = ClientRegistrationResponseSchema.safeParse(withExpiry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PortcullisError(
      'registration_failed',
      `The registration response is invalid (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'not a JSON object'}).`,
      { url: registrationEndpoint },
    );
  }
  const info = parsed.data;
  return {
    clientId: info.client_id,
    ...(info.client_secret === undefined ? {} : { clientSecret: info.client_secret }),
    ...(info.client_secret_expires_at === undefined
      ? {}
      : { clientSecretExpiresAt: info.client_secret_expires_at }),
    ...(info.token_endpoint_auth_method === undefined
      ? {}
      : { tokenEndpointAuthMethod: info.token_endpoint_auth_method }),
    redirectUris: info.redirect_uris ?? [],
  };
}

/**
 * The token endpoint authentication method to use with a client: the registered one when the client can use it,
 * else `private_key_jwt` with a private key, else, with a secret, the first of `client_secret_basic`,
 * `client_secret_post` the server supports (`client_secret_basic` when it does not say, RFC 8414 Section 2), else
 * `none`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
export function chooseTokenEndpointAuthMethod(input: {
  registered: string | undefined;
  hasSecret: boolean;
  supported: readonly string[] | undefined;
  hasPrivateKey?: boolean;
}): TokenEndpointAuthMethod {
  const usable: TokenEndpointAuthMethod[] = [
    ...(input.hasPrivateKey === true ? (['private_key_jwt'] as const) : []),
    ...(input.hasSecret ? (['client_secret_basic', 'client_secret_post'] as const) : []),
    'none',
  ];
  const registered = usable.find((method) => method === input.registered);
  if (registered !== undefined) return registered;
  if (input.hasPrivateKey === true) return 'private_key_jwt';
  if (!input.hasSecret) return 'none';
  const supported = input.supported ?? ['client_secret_basic'];
  return (
    (['client_secret_basic', 'client_secret_post'] as const).find((method) => supported.includes(method)) ??
    'none'
  );
}
