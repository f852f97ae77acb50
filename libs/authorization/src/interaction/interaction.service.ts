import { Inject, Injectable, Logger } from '@nestjs/common';
import type { LoginSession } from '@portcullis/persistence';
import { scopesSatisfy } from '@portcullis/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorizationResponseUrl } from '../authorize/authorization-response.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { ConsentRepository } from '../consent/consent.repository.js';
import { ResourceRegistry } from '../resources/resource-registry.js';
import { SessionService } from '../sessions/session.service.js';
import { GrantRepository } from '../tokens/grant.repository.js';
import type { AuthenticatedUser } from './authenticator.js';
import { PendingAuthorizations, type ValidatedAuthorization } from './pending-authorization.js';

/**
 * What happens between a validated authorization request and the code: login when there is no session (or
 * `prompt=login`), consent when none covers the request (or `prompt=consent`), then a code sent to the client
 * with a 303. `prompt=none` turns every needed interaction into an error for the client.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2
 * @see https://openid.net/specs/openid-connect-core-1_0.html#AuthRequest (prompt)
 */
@Injectable()
export class InteractionService {
  readonly #logger = new Logger('Interaction');
  readonly #basePath: string;

  constructor(
    private readonly pending: PendingAuthorizations,
    private readonly sessions: SessionService,
    private readonly consents: ConsentRepository,
    private readonly grants: GrantRepository,
    private readonly resources: ResourceRegistry,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {
    this.#basePath = new URL(options.issuer).pathname.replace(/\/$/, '');
  }

  /** The path of one of this server's endpoints (under the issuer's path). */
  path(endpoint: string): string {
    return `${this.#basePath}/${endpoint}`;
  }

  /** Continues a request that passed every check. */
  async begin(request: ValidatedAuthorization, http: FastifyRequest, reply: FastifyReply): Promise<void> {
    const session = await this.sessions.current(http);
    const prompt = new Set(request.prompt);
    if (prompt.has('none')) {
      if (!session) return this.redirectError(reply, request, 'login_required', 'the user is not signed in');
      if (!(await this.#consentCovers(session.userId, request))) {
        return this.redirectError(
          reply,
          request,
          'consent_required',
          'the user has not approved this client',
        );
      }
      return this.#issueCode(reply, request, session, request.scopes);
    }
    const handle = await this.pending.save(request);
    if (!session || prompt.has('login') || prompt.has('select_account')) {
      return seeOther(reply, `${this.path('login')}?interaction=${encodeURIComponent(handle)}`);
    }
    return this.#afterLogin(reply, handle, request, session);
  }

  /**
   * Called once the authenticator knows who the user is: starts the session and goes on to consent or the code.
   * Public for authenticators that sign users in elsewhere (the proxy's upstream callback).
   */
  async completeLogin(handle: string, user: AuthenticatedUser, reply: FastifyReply): Promise<void> {
    const request = await this.pending.find(handle);
    if (!request) return seeOther(reply, this.path('login/expired'));
    const session = await this.sessions.start(reply, user.id);
    this.#logger.log(`user ${user.username} signed in`);
    return this.#afterLogin(reply, handle, request, session);
  }

  async #afterLogin(
    reply: FastifyReply,
    handle: string,
    request: ValidatedAuthorization,
    session: LoginSession,
  ): Promise<void> {
    const prompt = new Set(request.prompt);
    if (prompt.has('consent') || !(await this.#consentCovers(session.userId, request))) {
      return seeOther(reply, `${this.path('consent')}?interaction=${encodeURIComponent(handle)}`);
    }
    if (!(await this.pending.take(handle))) return seeOther(reply, this.path('login/expired'));
    return this.#issueCode(reply, request, session, request.scopes);
  }

  /**
   * Records the user's approval of `approved` scopes and sends the code; the pending request is taken first, so
   * a second submission of the same form does nothing.
   */
  async approve(
    reply: FastifyReply,
    handle: string,
    request: ValidatedAuthorization,
    session: LoginSession,
    approved: readonly string[],
  ): Promise<void> {
    if (!(await this.pending.take(handle))) return seeOther(reply, this.path('login/expired'));
    await this.consents.grant(session.userId, request.clientId, request.resource, approved);
    return this.#issueCode(reply, request, session, approved);
  }

  /** The user said no: `access_denied` to the client (RFC 6749 4.1.2.1). */
  async deny(reply: FastifyReply, handle: string, request: ValidatedAuthorization): Promise<void> {
    if (!(await this.pending.take(handle))) return seeOther(reply, this.path('login/expired'));
    return this.redirectError(reply, request, 'access_denied', 'the user denied the request');
  }

  /** An error response at the validated redirect URI, with `state` and `iss`. */
  redirectError(
    reply: FastifyReply,
    request: Pick<ValidatedAuthorization, 'redirectUri' | 'state'>,
    error: string,
    description?: string,
  ): void {
    seeOther(
      reply,
      authorizationResponseUrl(request.redirectUri, this.options.issuer, {
        error,
        error_description: description,
        state: request.state,
      }),
    );
  }

  async #consentCovers(userId: string, request: ValidatedAuthorization): Promise<boolean> {
    const stored = await this.consents.scopes(userId, request.clientId, request.resource);
    if (!stored) return false;
    const resource = this.resources.list().find((candidate) => candidate.uri === request.resource);
    return scopesSatisfy(stored, request.scopes, resource?.scopeHierarchy);
  }

  async #issueCode(
    reply: FastifyReply,
    request: ValidatedAuthorization,
    session: LoginSession,
    scopes: readonly string[],
  ): Promise<void> {
    const now = Date.now();
    const { lifetimes } = this.options;
    const code = await this.grants.createWithCode(
      {
        clientId: request.clientId,
        userId: session.userId,
        resource: request.resource,
        scopes: [...scopes],
        sessionId: session.id,
        offlineAccess: scopes.includes('offline_access'),
        authTime: session.authenticatedAt,
        absoluteExpiresAt: new Date(now + lifetimes.refreshTokenAbsolute * 1000),
      },
      {
        redirectUri: request.redirectUri,
        redirectUriSent: request.redirectUriSent !== false,
        codeChallenge: request.codeChallenge,
        ...(request.nonce ? { nonce: request.nonce } : {}),
        expiresAt: new Date(now + lifetimes.authorizationCode * 1000),
      },
    );
    seeOther(
      reply,
      authorizationResponseUrl(request.redirectUri, this.options.issuer, { code, state: request.state }),
    );
  }
}

/** 303 See Other: after a POST the browser follows with a GET (RFC 9110 15.4.4), never re-posting the form. */
export function seeOther(reply: FastifyReply, location: string): void {
  reply.status(303).header('location', location).header('cache-control', 'no-store').send();
}
