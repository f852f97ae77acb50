// Rules kept: RFC 8693 2.1 (the request: `subject_token` and `subject_token_type` required; `requested_token_type`,
// `audience`, `scope` optional), 2.2.1 (the answer: `access_token`, `issued_token_type`, `token_type`, `expires_in`,
// `scope`; no refresh token here) and 2.2.2 (`invalid_request` for a malformed request, `invalid_target` for an
// audience the server will not issue for); RFC 6749 5.2 `invalid_grant` for a subject token that is not valid, and
// `unauthorized_client` for a client not allowed the grant. The MCP specification's "Token Passthrough": the token a
// resource server gets here is the upstream's own, issued to the proxy, never the one the MCP client presented. A
// user without a live connection is refused with `invalid_grant` and, in `interaction_uri`, a one-time link for that
// user alone to connect again (`ConnectTickets`), for the resource server to show them (MCP URL-mode elicitation).
import { Inject, Injectable } from '@nestjs/common';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  endpointPath,
  IssuedTokens,
  SecurityEvents,
  type AuthenticatedOAuthClient,
  type AuthorizationServerOptions,
  type RequestParameters,
  type TokenGrant,
} from '@portcullis/authorization';
import type { TokenResponse } from '@portcullis/extensions';
import { OAuthError, parseScope } from '@portcullis/protocol';
import { connectPath, ConnectTickets } from '../../connections/connect-ticket.service.js';
import { SIGN_IN_CONNECTION } from '../../connections/connections.env.js';
import { UpstreamError } from '../upstream.error.js';
import { ConnectionUnavailable, UpstreamVault } from '../upstream-vault.service.js';

/** RFC 8693 2.1's grant type. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** RFC 8693 3: an OAuth 2.0 access token, the only kind exchanged here, in and out. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/**
 * RFC 8693 token exchange at the proxy's token endpoint: a resource server the operator registered for it (a
 * confidential client whose `resource_server` is one of the proxy's resources, with this grant) presents the access
 * token a user's MCP client gave it, issued by the proxy for that resource, and names a connection as `audience`; it
 * gets that user's current access token of the connection from the vault (refreshed there when needed), so that it
 * can call the provider's API as the user. Every refusal issues nothing and records `token_exchange.refused`; the
 * one for a user without a live connection carries `interaction_uri`, the user's connect link.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#token-passthrough
 */
@Injectable()
export class TokenExchangeGrant implements TokenGrant {
  readonly grantType = TOKEN_EXCHANGE_GRANT;

  constructor(
    private readonly issued: IssuedTokens,
    private readonly vault: UpstreamVault,
    private readonly events: SecurityEvents,
    private readonly tickets: ConnectTickets,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  async handle(
    params: RequestParameters,
    authenticated: AuthenticatedOAuthClient | undefined,
  ): Promise<TokenResponse> {
    const client = authenticated?.client;
    const refuse = async (error: OAuthError, detail: Record<string, string> = {}): Promise<never> => {
      await this.events.record('token_exchange.refused', {
        ...(client ? { clientId: client.clientId } : {}),
        detail: { error: error.code, reason: error.description ?? error.code, ...detail },
      });
      throw error;
    };
    // The token controller has authenticated the client and checked that it is registered for this grant.
    if (!client || authenticated.method === 'none' || client.resourceServer === undefined) {
      return refuse(
        new OAuthError(
          'unauthorized_client',
          'only a resource server registered for token exchange may exchange tokens',
        ),
      );
    }
    const request = readRequest(params);
    if (request instanceof OAuthError) return refuse(request);

    const subject = await this.issued.find(request.subjectToken, 'access_token');
    if (!subject || subject.kind !== 'access_token' || !(await this.issued.isActive(subject))) {
      return refuse(
        new OAuthError('invalid_grant', 'subject_token is not an active access token of this server'),
      );
    }
    if (subject.record.audience !== client.resourceServer) {
      return refuse(
        new OAuthError('invalid_grant', 'subject_token was not issued for this resource server'),
        { audience: subject.record.audience },
      );
    }
    // A token that names a person: one issued with a user's grant, for that user (a client credentials token names
    // its client, and has no user whose connections it could reach).
    const grant = subject.grant;
    if (!grant || grant.userId !== subject.payload.sub) {
      return refuse(new OAuthError('invalid_grant', 'subject_token does not represent a user'));
    }
    const userId = grant.userId;
    if (!this.vault.has(request.connection)) {
      return refuse(new OAuthError('invalid_target', `no connection is named ${request.connection}`), {
        connection: request.connection,
      });
    }
    // Each resource server reaches only the connections its operator named for it (`--connections`): the notes
    // server that needs the sign-in provider's token does not get the user's GitHub one.
    if (!exchangeableConnections(client.metadata).includes(request.connection)) {
      return refuse(
        new OAuthError('invalid_target', `this resource server may not exchange for ${request.connection}`),
        { connection: request.connection },
      );
    }
    let token;
    try {
      token = await this.vault.accessToken(userId, request.connection);
    } catch (error) {
      if (error instanceof ConnectionUnavailable) {
        await this.events.record('token_exchange.refused', {
          clientId: client.clientId,
          userId,
          detail: { error: 'invalid_grant', reason: error.reason, connection: request.connection },
        });
        // The link is for this user alone: the connect step completes only for a person whose upstream sign-in
        // is this user's, once, within its lifetime.
        const ticket = this.tickets.issue({
          userId,
          connection: request.connection,
          clientId: client.clientId,
        });
        const link = new URL(
          endpointPath(this.options.issuer, connectPath(request.connection)),
          this.options.issuer,
        );
        link.searchParams.set('ticket', ticket);
        throw new OAuthError('invalid_grant', error.message, { members: { interaction_uri: link.href } });
      }
      if (error instanceof UpstreamError) {
        throw new OAuthError(
          'temporarily_unavailable',
          `the provider of ${request.connection} could not be reached`,
          {
            cause: error,
          },
        );
      }
      throw error;
    }
    const missing = request.scopes.filter((scope) => !token.scopes.includes(scope));
    if (missing.length > 0) {
      return refuse(new OAuthError('invalid_scope', `the connection was not granted ${missing.join(' ')}`), {
        connection: request.connection,
      });
    }
    const expiresIn = token.expiresAt
      ? Math.max(0, Math.floor((token.expiresAt.getTime() - Date.now()) / 1000))
      : undefined;
    return {
      access_token: token.accessToken,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      ...(expiresIn === undefined ? {} : { expires_in: expiresIn }),
      ...(token.scopes.length > 0 ? { scope: token.scopes.join(' ') } : {}),
    };
  }
}

/**
 * The connections a resource server may exchange for: its `token_exchange_connections` (`portcullis-admin clients
 * create ... --grant token-exchange --connections`), else the sign-in provider's alone, as before connections existed.
 */
export function exchangeableConnections(metadata: Readonly<Record<string, unknown>>): readonly string[] {
  const named = metadata['token_exchange_connections'];
  return Array.isArray(named) && named.every((each) => typeof each === 'string')
    ? named
    : [SIGN_IN_CONNECTION];
}

interface ExchangeRequest {
  readonly subjectToken: string;
  readonly connection: string;
  readonly scopes: readonly string[];
}

/** The request's parameters as RFC 8693 2.1 defines them, or the `invalid_request` they amount to. */
function readRequest(params: RequestParameters): ExchangeRequest | OAuthError {
  const subjectToken = params.get('subject_token');
  const subjectTokenType = params.get('subject_token_type');
  const requested = params.get('requested_token_type');
  const connection = params.get('audience');
  if (!subjectToken || !subjectTokenType) {
    return new OAuthError('invalid_request', 'subject_token and subject_token_type are required');
  }
  if (subjectTokenType !== ACCESS_TOKEN_TYPE) {
    return new OAuthError('invalid_request', `subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }
  if (requested !== undefined && requested !== ACCESS_TOKEN_TYPE) {
    return new OAuthError('invalid_request', `requested_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }
  if (params.has('actor_token') || params.has('actor_token_type')) {
    return new OAuthError('invalid_request', 'delegation (actor_token) is not supported');
  }
  if (params.resources.length > 0) {
    return new OAuthError('invalid_target', 'name the connection as audience; resource is not taken here');
  }
  if (!connection) return new OAuthError('invalid_request', "audience is required: the connection's name");
  let scopes: string[];
  try {
    scopes = parseScope(params.get('scope'));
  } catch (error) {
    return error instanceof OAuthError ? error : new OAuthError('invalid_scope', 'malformed scope');
  }
  return { subjectToken, connection, scopes };
}
