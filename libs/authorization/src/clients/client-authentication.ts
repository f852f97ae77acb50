import { Inject, Injectable } from '@nestjs/common';
import { OAuthError, hasUnsafeCharacter } from '@portcullis/protocol';
import type { RequestParameters } from '../http/request-parameters.js';
import {
  ClientAssertionVerifier,
  JWT_BEARER_ASSERTION_TYPE,
} from './client-assertions/client-assertion.verifier.js';
import { CLIENT_SOURCE, type ClientSource, type OAuthClient } from './client.js';
import { verifyClientSecret } from './client-secret.js';
import { InvalidClientError } from './invalid-client.error.js';

export { InvalidClientError };

/** A client identified (public) or authenticated (confidential) at the token endpoint. */
export interface AuthenticatedOAuthClient {
  readonly client: OAuthClient;
  /** The `token_endpoint_auth_method` it used. */
  readonly method: string;
}

/**
 * Client authentication at the token endpoint (RFC 6749 2.3, OAuth 2.1 2.4), and at introspection and revocation.
 * Exactly one method per request: `client_secret_basic` (the Authorization header), `client_secret_post`
 * (`client_secret` in the body), `private_key_jwt` (a signed `client_assertion`, RFC 7523 2.2; the client may be
 * named by the assertion's `sub` alone), or `none` (a public client naming itself with `client_id`). Two methods at once is `invalid_request`; the method must be
 * the one the client registered; a wrong secret is `invalid_client`, and so are Basic credentials holding a control
 * character or a lone surrogate (refused before any lookup). Every failure looks the same from outside, so the
 * response does not tell whether a client ID exists.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-v2-1-13#section-2.4
 */
@Injectable()
export class ClientAuthenticator {
  constructor(
    @Inject(CLIENT_SOURCE) private readonly clients: ClientSource,
    private readonly assertions: ClientAssertionVerifier,
  ) {}

  async authenticate(
    params: RequestParameters,
    authorization: string | undefined,
  ): Promise<AuthenticatedOAuthClient> {
    const basic = parseBasic(authorization);
    const methods = [
      basic ? 'client_secret_basic' : undefined,
      params.has('client_secret') ? 'client_secret_post' : undefined,
      params.has('client_assertion') || params.has('client_assertion_type') ? 'private_key_jwt' : undefined,
    ].filter((method): method is string => method !== undefined);
    if (methods.length > 1) {
      throw new OAuthError(
        'invalid_request',
        `more than one client authentication method: ${methods.join(', ')}`,
      );
    }
    const method = methods[0] ?? 'none';
    const bodyClientId = params.get('client_id');
    const assertion = method === 'private_key_jwt' ? this.#assertion(params) : undefined;
    const claimed = assertion === undefined ? undefined : ClientAssertionVerifier.claimedClient(assertion);
    if (assertion !== undefined && !claimed)
      throw new InvalidClientError('client_assertion is not a JWT with a sub');
    if (claimed !== undefined && bodyClientId !== undefined && bodyClientId !== claimed) {
      // RFC 7521 4.2: a client_id sent beside the assertion must name the client the assertion is from.
      throw new InvalidClientError('client_id differs from the client_assertion sub');
    }
    const clientId = basic?.clientId ?? claimed ?? bodyClientId;
    if (!clientId) throw new InvalidClientError('client authentication failed');
    if (basic && bodyClientId !== undefined && bodyClientId !== basic.clientId) {
      throw new OAuthError('invalid_request', 'client_id in the body differs from the authenticated client');
    }

    const client = await this.clients.find(clientId);
    if (!client) throw new InvalidClientError('client authentication failed');
    if (client.tokenEndpointAuthMethod !== method) {
      throw new InvalidClientError('client authentication failed');
    }
    switch (method) {
      case 'none':
        return { client, method };
      case 'client_secret_basic':
      case 'client_secret_post': {
        const secret = basic?.secret ?? params.get('client_secret') ?? '';
        const expired =
          client.secretExpiresAt !== undefined && client.secretExpiresAt.getTime() <= Date.now();
        if (expired || !verifyClientSecret(secret, client.secretHash)) {
          throw new InvalidClientError('client authentication failed');
        }
        return { client, method };
      }
      case 'private_key_jwt':
        await this.assertions.verify(assertion ?? '', client);
        return { client, method };
      default:
        throw new InvalidClientError('client authentication method not supported');
    }
  }

  /** The assertion of a `private_key_jwt` request, of the one supported type (RFC 7521 4.2). */
  #assertion(params: RequestParameters): string {
    const type = params.get('client_assertion_type');
    const assertion = params.get('client_assertion');
    if (!type || !assertion) {
      throw new OAuthError('invalid_request', 'client_assertion and client_assertion_type go together');
    }
    if (type !== JWT_BEARER_ASSERTION_TYPE) {
      throw new InvalidClientError(`client_assertion_type must be ${JWT_BEARER_ASSERTION_TYPE}`);
    }
    return assertion;
  }
}

/**
 * The credentials of an HTTP Basic header. RFC 6749 2.3.1: client ID and secret are form-urlencoded before they
 * are joined with `:` and base64-encoded. A malformed header is `invalid_client` (RFC 6749 5.2).
 */
function parseBasic(header: string | undefined): { clientId: string; secret: string } | undefined {
  if (header === undefined) return undefined;
  const encoded = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header)?.[1];
  if (!encoded) throw new InvalidClientError('malformed Authorization header');
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new InvalidClientError('malformed Authorization header');
  try {
    const clientId = formDecode(decoded.slice(0, colon));
    const secret = formDecode(decoded.slice(colon + 1));
    if (!clientId) throw new InvalidClientError('malformed Authorization header');
    // The header is parsed here, not with the form: the same plain-text rule (NUL cannot reach the database).
    if (hasUnsafeCharacter(decoded) || hasUnsafeCharacter(clientId) || hasUnsafeCharacter(secret)) {
      throw new InvalidClientError('malformed Authorization header');
    }
    return { clientId, secret };
  } catch (error) {
    if (error instanceof OAuthError) throw error;
    throw new InvalidClientError('malformed Authorization header');
  }
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}
