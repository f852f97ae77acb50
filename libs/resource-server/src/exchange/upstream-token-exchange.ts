/**
 * The user's token at an upstream provider, for a resource server that calls that provider's API as the user.
 *
 * Rules kept here:
 * - MCP "Token Passthrough": the token the client presented is never sent anywhere but to the authorization server
 *   that issued it, as the `subject_token` of an RFC 8693 exchange; what the upstream API gets is the token the
 *   exchange answers, issued by the upstream to the authorization server (Portcullis's proxy keeps it in its vault).
 * - RFC 8693 2.1: `grant_type` token-exchange, the presented access token as `subject_token` with its type,
 *   `requested_token_type` access token, the connection's name as `audience`; the resource server authenticates with
 *   its own client credentials (`client_secret_basic`, RFC 6749 2.3.1), those it introspects with.
 * - RFC 8693 2.2.1: an answer without `access_token`, or whose `issued_token_type` is not an access token, is not
 *   used. RFC 6749 5.2: `invalid_grant` says the user has no live connection; the proxy adds where the user can
 *   connect (`interaction_uri`), which {@link ConnectionRequiredError} carries.
 * - The exchange happens only at the authorization server the credentials are for (`tokens.introspection.issuer`):
 *   a token of another trusted issuer is refused before anything is sent, so the credentials never reach a server
 *   they were not issued by; an `interaction_uri` is kept only when it is on that server's origin.
 * - The user is who the verified token says (recorded when it was accepted), never a field of the view a handler
 *   holds, so a handler cannot get another user's token by editing its `AuthInfo`.
 * - An answer is kept per user and connection until 30 s before it expires, and never longer than the token cache's
 *   lifetime (`tokens.cacheTtlSeconds`) nor past the presented token's own expiry, at most a bounded number of them;
 *   concurrent requests for one user and connection share one exchange.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc8693#section-2 RFC 8693 Section 2}
 */
import type { AuthInfo as McpAuthInfo } from '@modelcontextprotocol/server';
import { isLoopbackHost } from '@portcullis/protocol';
import { z } from 'zod';
import type { AuthInfo } from '../auth/auth-info.js';
import type { ResourceServerConfig } from '../config/resource-server.config.js';
import { BoundedLru } from '../tokens/bounded-lru.js';
import type { AuthorizationServerDirectory } from '../tokens/discovery/authorization-server-directory.js';
import { clientSecretBasic, fetchJson, UpstreamFetchError } from '../tokens/discovery/fetch-json.js';
import { presentedTokenOf } from './presented-token.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** An exchanged token is not handed out in its last 30 s: it must still be valid when the upstream API reads it. */
const EXPIRY_MARGIN_MS = 30_000;

/** A connection's name, as the authorization server knows it (`upstream`: the provider people sign in with). */
const CONNECTION = /^[A-Za-z0-9._-]{1,64}$/;

const ExchangeAnswerSchema = z.looseObject({
  access_token: z.string().min(1),
  issued_token_type: z.literal(ACCESS_TOKEN_TYPE),
  token_type: z.string().min(1),
  expires_in: z.number().int().nonnegative().optional(),
  scope: z.string().optional(),
});

const ExchangeErrorSchema = z.looseObject({
  error: z.string(),
  error_description: z.string().optional(),
  interaction_uri: z.string().optional(),
});

/** The user's access token at an upstream provider. */
export interface UpstreamAccessToken {
  readonly accessToken: string;
  /** How to present it (`Bearer`). */
  readonly tokenType: string;
  readonly scopes: readonly string[];
  /** Milliseconds since the epoch; absent when the authorization server did not say. */
  readonly expiresAt?: number;
}

/**
 * The user has no live connection to `connection`: never connected, or the provider no longer honours it. With
 * `interactionUri`, the user can connect there (an MCP server asks them with a URL elicitation).
 */
export class ConnectionRequiredError extends Error {
  constructor(
    readonly connection: string,
    readonly interactionUri: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'ConnectionRequiredError';
  }
}

/**
 * The exchange could not be done: the authorization server is away or refused this resource server (its credentials,
 * its registration for token exchange, an unknown connection). Not the user's doing; the cause is in `message`.
 */
export class UpstreamTokenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UpstreamTokenError';
  }
}

/** RFC 8693 token exchange for {@link UpstreamAccessToken}s, with a cache per user and connection. */
export class UpstreamTokenExchange {
  readonly #cache: BoundedLru<string, { readonly token: UpstreamAccessToken; readonly keepUntil: number }>;
  readonly #pending = new Map<string, Promise<UpstreamAccessToken>>();

  constructor(
    private readonly config: ResourceServerConfig,
    private readonly directory: AuthorizationServerDirectory,
  ) {
    this.#cache = new BoundedLru(config.tokens.cacheMaxEntries);
  }

  /**
   * The user's current access token at `connection`, for the request `auth` describes (the resource server's
   * `AuthInfo`, or the MCP SDK's built from it).
   *
   * @throws ConnectionRequiredError when the user must connect first
   * @throws UpstreamTokenError when the exchange cannot be done
   */
  async upstreamToken(auth: AuthInfo | McpAuthInfo, connection: string): Promise<UpstreamAccessToken> {
    if (!CONNECTION.test(connection)) {
      throw new UpstreamTokenError(`"${connection}" is not a connection name`);
    }
    const presented = presentedTokenOf(auth);
    if (presented === undefined) {
      throw new UpstreamTokenError(
        'upstreamToken needs the auth info of a request this resource server accepted',
      );
    }
    const credentials = this.config.tokens.introspection;
    if (!credentials) {
      throw new UpstreamTokenError(
        "upstreamToken needs the resource server's client credentials at the authorization server (tokens.introspection)",
      );
    }
    const { issuer, subject, token: subjectToken } = presented;
    if (issuer !== credentials.issuer) {
      // Never send these credentials to an authorization server they were not issued by.
      throw new UpstreamTokenError(
        `${issuer} is not the authorization server this resource server exchanges tokens at`,
      );
    }
    const key = `${issuer}\n${subject}\n${connection}`;
    const cached = this.#cache.get(key);
    if (cached && cached.keepUntil > Date.now()) return cached.token;
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#exchange(issuer, subjectToken, connection, credentials).finally(() =>
        this.#pending.delete(key),
      );
      this.#pending.set(key, pending);
    }
    const token = await pending;
    const keepUntil = Math.min(
      token.expiresAt === undefined ? Infinity : token.expiresAt - EXPIRY_MARGIN_MS,
      Date.now() + this.config.tokens.cacheTtlSeconds * 1000,
      typeof auth.expiresAt === 'number' ? auth.expiresAt * 1000 : Infinity,
    );
    if (keepUntil > Date.now()) this.#cache.set(key, { token, keepUntil });
    return token;
  }

  /** Forgets the exchanged token of a user and connection (the upstream API refused it). */
  forget(auth: AuthInfo | McpAuthInfo, connection: string): void {
    const presented = presentedTokenOf(auth);
    if (presented) this.#cache.delete(`${presented.issuer}\n${presented.subject}\n${connection}`);
  }

  async #exchange(
    issuer: string,
    subjectToken: string,
    connection: string,
    credentials: { readonly clientId: string; readonly clientSecret: string },
  ): Promise<UpstreamAccessToken> {
    let tokenEndpoint: string | undefined;
    try {
      tokenEndpoint = (await this.directory.lookup(issuer)).tokenEndpoint;
    } catch (error) {
      throw new UpstreamTokenError(`the metadata of ${issuer} cannot be read`, { cause: error });
    }
    if (!tokenEndpoint) throw new UpstreamTokenError(`${issuer} publishes no token_endpoint`);
    let result;
    try {
      result = await fetchJson(tokenEndpoint, {
        timeoutMs: this.config.tokens.discovery.timeoutMs,
        headers: { authorization: clientSecretBasic(credentials.clientId, credentials.clientSecret) },
        form: new URLSearchParams({
          grant_type: TOKEN_EXCHANGE,
          subject_token: subjectToken,
          subject_token_type: ACCESS_TOKEN_TYPE,
          requested_token_type: ACCESS_TOKEN_TYPE,
          audience: connection,
        }),
        errorBodies: true,
      });
    } catch (error) {
      throw new UpstreamTokenError(`the token exchange at ${issuer} failed`, {
        cause: error instanceof UpstreamFetchError ? error : undefined,
      });
    }
    if (result.status === 200 && 'body' in result) {
      const answer = ExchangeAnswerSchema.safeParse(result.body);
      if (!answer.success)
        throw new UpstreamTokenError(`${issuer} answered the exchange without an access token`);
      const { access_token: accessToken, token_type: tokenType, expires_in: expiresIn, scope } = answer.data;
      return Object.freeze({
        accessToken,
        tokenType,
        scopes: Object.freeze((scope ?? '').split(' ').filter(Boolean)),
        ...(expiresIn === undefined ? {} : { expiresAt: Date.now() + expiresIn * 1000 }),
      });
    }
    const refusal = ExchangeErrorSchema.safeParse('errorBody' in result ? result.errorBody : undefined);
    // `invalid_grant` with where to connect: the user has no live connection. Without it, the subject token itself
    // was refused (revoked, for another audience), which connecting would not fix.
    const interactionUri = refusal.success ? onOrigin(refusal.data.interaction_uri, issuer) : undefined;
    if (
      result.status === 400 &&
      refusal.success &&
      refusal.data.error === 'invalid_grant' &&
      interactionUri
    ) {
      throw new ConnectionRequiredError(
        connection,
        interactionUri,
        refusal.data.error_description ?? `connect ${connection} first`,
      );
    }
    const code = refusal.success ? refusal.data.error : `status ${result.status}`;
    throw new UpstreamTokenError(`${issuer} refused the token exchange for ${connection}: ${code}`);
  }
}

/**
 * An `interaction_uri` a user may be sent to: on the authorization server's own origin, https (or http on loopback),
 * without userinfo; anything else is dropped (a page elsewhere is not the server the user trusts with the connection).
 */
function onOrigin(value: string | undefined, issuer: string): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    const safe = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
    return safe && !url.username && !url.password && url.origin === new URL(issuer).origin
      ? url.href
      : undefined;
  } catch {
    return undefined;
  }
}
