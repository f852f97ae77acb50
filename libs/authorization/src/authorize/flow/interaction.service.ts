import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLIENT_SOURCE, type ClientSource, type OAuthClient } from '../../clients/client.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../../config/authorization-server.options.js';
import { ConsentRepository } from '../../consent/consent.repository.js';
import { SecurityEvents } from '../../events/security-events.js';
import type { CookieExchange } from '../../http/cookies.js';
import type { RequestParameters } from '../../http/request-parameters.js';
import { SessionService } from '../../sessions/session.service.js';
import { GrantRepository, randomToken, type NewCode, type NewGrant } from '../../tokens/grant.repository.js';
import { seal, unseal } from '../../tokens/sealed.js';
import { errorPage, expiredPage, otherBrowserPage } from '../pages/error.page.js';
import { authorizationResponseUrl } from './authorization-response.js';
import {
  INTERACTION_STEPS,
  type Decision,
  type InteractionFlow,
  type InteractionStep,
} from './interaction-step.js';
import { PendingAuthorizations, pendingAuthorizationId } from './pending-authorization.repository.js';
import type { ValidatedAuthorization } from './pending-authorization.js';
import { RedirectTrust } from './redirect-trust.js';
import { endpointPath } from './paths.js';
import { signIn, type AuthenticatedUser } from '../steps/sign-in.js';

/** A decision the controller can send as it is: a page or a redirect. */
export type Answer = Extract<Decision, { kind: 'page' } | { kind: 'redirect' }>;

type HeldFlow = InteractionFlow & { handle: string };

/**
 * What happens between a validated authorization request and the code. The request walks the app's ordered
 * {@link InteractionStep}s (sign in, consent, confirm, and any the app adds) on every request: each step says
 * whether the flow may go past it, and when every step has, the code goes to the client with a 303. A step that
 * needs the person sends the browser to its page (under `prompt=none`, an error for the client instead); an error
 * ends the authorization as the {@link RedirectTrust} policy allows. The pending request is read once per HTTP
 * request and validated; so is the client.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2
 * @see https://openid.net/specs/openid-connect-core-1_0.html#AuthRequest (prompt)
 */
@Injectable()
export class InteractionService {
  readonly #logger = new Logger('Interaction');
  readonly #byPath: Map<string, InteractionStep>;

  constructor(
    private readonly pending: PendingAuthorizations,
    private readonly sessions: SessionService,
    private readonly consents: ConsentRepository,
    private readonly events: SecurityEvents,
    private readonly grants: GrantRepository,
    private readonly trust: RedirectTrust,
    @Inject(CLIENT_SOURCE) private readonly clients: ClientSource,
    @Inject(INTERACTION_STEPS) private readonly steps: readonly InteractionStep[],
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {
    this.#byPath = new Map(steps.flatMap((step) => (step.path ? [[step.path, step] as const] : [])));
  }

  /** The path of one of this server's endpoints (under the issuer's path). */
  path(endpoint: string): string {
    return endpointPath(this.options.issuer, endpoint);
  }

  /** Continues a request that passed every check of `/authorize`. */
  async begin(
    request: ValidatedAuthorization,
    client: OAuthClient,
    cookies: CookieExchange,
  ): Promise<Answer> {
    const { session, consent } = await this.sessions.currentWithConsent(
      cookies,
      request.clientId,
      request.resource,
    );
    return this.#walk(
      this.#flow({
        request,
        client,
        progress: {},
        cookies,
        ...(session ? { session } : {}),
        ...(consent ? { consent } : {}),
      }),
    );
  }

  /** GET of a step's page. */
  async show(path: string, query: RequestParameters, cookies: CookieExchange): Promise<Answer> {
    const step = this.#step(path);
    const flow = await this.#resume(query.get('interaction'), cookies);
    // A page asked for again (history, the back button) is not an answer sent again: nothing is given again.
    if (!flow) return page(400, expiredPage());
    if (!('handle' in flow)) return flow;
    const before = await this.#walk(flow, step);
    if (before) return before;
    if ((await step.next(flow)).kind !== 'ask' || !step.show) return this.#walk(flow);
    return this.#resolve(flow, await step.show(flow, query, this.#csrfToken(step, flow)), step);
  }

  /**
   * POST of a step's form: the CSRF token first (bound to this browser or session and to this pending request),
   * before anything is read or written; then the steps before this one must still hold; then the step's answer.
   */
  async submit(path: string, form: RequestParameters, cookies: CookieExchange): Promise<Answer> {
    const step = this.#step(path);
    const flow = await this.#resume(form.get('interaction'), cookies);
    if (!flow) return this.#answeredAlready(form.get('interaction'), cookies);
    if (!('handle' in flow)) return flow;
    if (!this.#csrfValid(step, flow, form.get('csrf'))) {
      const where = step.form === 'session' ? 'session' : 'browser';
      return page(403, errorPage('invalid_request', `the form expired or was not sent from this ${where}`));
    }
    const before = await this.#walk(flow, step);
    if (before) return before;
    if (!step.submit) return this.#walk(flow);
    const decision = await step.submit(flow, form);
    if (decision.kind !== 'continue') return this.#resolve(flow, decision, step);
    if (!(await this.#record(flow))) return this.#answeredAlready(flow.handle, cookies);
    return this.#walk(flow);
  }

  /**
   * For steps that sign people in elsewhere (the proxy's upstream callback): starts the session of `user` in the
   * browser that started the pending authorization, lets `signedIn` see the flow (what this browser approved in it)
   * and walks on.
   */
  async completeSignIn(
    handle: string,
    cookies: CookieExchange,
    user: AuthenticatedUser,
    signedIn?: (flow: InteractionFlow) => void,
  ): Promise<Answer> {
    const flow = await this.#resume(handle, cookies);
    if (!flow) return this.#answeredAlready(handle, cookies);
    if (!('handle' in flow)) return flow;
    await signIn(this.sessions, flow, user);
    this.#logger.log(`user ${user.username} signed in`);
    if (!(await this.#record(flow))) return this.#answeredAlready(flow.handle, cookies);
    signedIn?.(flow);
    return this.#walk(flow);
  }

  /** Ends a pending authorization with an OAuth error for the client (e.g. the person said no upstream). */
  async fail(handle: string, cookies: CookieExchange, error: string, description: string): Promise<Answer> {
    const flow = await this.#resume(handle, cookies);
    if (!flow) return page(400, expiredPage());
    if (!('handle' in flow)) return flow;
    return this.#resolve(flow, { kind: 'error', error, description });
  }

  /** A flow whose `persist` stores it here. */
  #flow<F extends Omit<InteractionFlow, 'persist'>>(fields: F): F & InteractionFlow {
    const flow = fields as F & InteractionFlow;
    // Saved once, owned by this browser; later changes are recorded by the requests that make them (a GET that
    // only shows a page writes nothing).
    flow.persist = async () => {
      if (flow.handle) return flow.handle;
      const browser = digest(this.sessions.browserBinding(flow.cookies));
      flow.progress = { ...flow.progress, browser };
      flow.handle = await this.pending.save({ request: flow.request, progress: flow.progress });
      return flow.handle;
    };
    return flow;
  }

  /**
   * Walks the steps in order. With `until`, stops before that step and returns a decision only if an earlier step
   * does not let the flow past; without, finishes the authorization when every step does.
   */
  async #walk(flow: InteractionFlow, until: InteractionStep): Promise<Answer | undefined>;
  async #walk(flow: InteractionFlow): Promise<Answer>;
  async #walk(flow: InteractionFlow, until?: InteractionStep): Promise<Answer | undefined> {
    for (const step of this.steps) {
      if (step === until) return undefined;
      const decision = await step.next(flow);
      if (decision.kind !== 'continue') return this.#resolve(flow, decision, step);
    }
    return this.#finish(flow);
  }

  async #resolve(flow: InteractionFlow, decision: Decision, step?: InteractionStep): Promise<Answer> {
    switch (decision.kind) {
      case 'page':
      case 'redirect':
        return decision;
      case 'continue':
        return this.#walk(flow);
      case 'ask': {
        if (flow.request.prompt.includes('none') || !step?.path) {
          const error = step?.promptNoneError ?? 'interaction_required';
          return this.#resolve(flow, { kind: 'error', error, description: PROMPT_NONE_TEXT[error] ?? error });
        }
        const handle = await flow.persist();
        return {
          kind: 'redirect',
          location: `${this.path(step.path)}?interaction=${encodeURIComponent(handle)}`,
        };
      }
      case 'error':
        // Taken first: an authorization that ended cannot be continued, and a second answer finds it gone.
        if (flow.handle && !(await this.pending.take(flow.handle))) return page(400, expiredPage());
        return this.trust.error(
          { client: flow.client, redirectUri: flow.request.redirectUri, state: flow.request.state },
          flow.session,
          decision.error,
          decision.description,
        );
    }
  }

  /**
   * Every step let the flow past: record what was approved in this flow, and send the code. The pending
   * authorization is taken in the statement that stores the code, so that of two answers to it (a form sent twice)
   * only one stores a code; the redirect is kept with the code, sealed, for the browser that sends the form again
   * because the first answer never reached it ({@link #answeredAlready}).
   */
  async #finish(flow: InteractionFlow): Promise<Answer> {
    const { request, session } = flow;
    if (!session) throw new Error('interaction steps out of order: no session at the end of the flow');
    const approved = flow.progress.approvedScopes;
    const scopes = approved ?? request.scopes;
    const now = Date.now();
    const { lifetimes } = this.options;
    const grant: NewGrant = {
      clientId: request.clientId,
      userId: session.userId,
      resource: request.resource,
      scopes: [...scopes],
      sessionId: session.id,
      offlineAccess: scopes.includes('offline_access'),
      authTime: session.authenticatedAt,
      amr: session.amr,
      ...(request.authorizationRequest ? { authorizationRequest: request.authorizationRequest } : {}),
      ...(request.attachments ? { attachments: request.attachments } : {}),
      absoluteExpiresAt: new Date(now + lifetimes.refreshTokenAbsolute * 1000),
    };
    const code: NewCode = {
      redirectUri: request.redirectUri,
      redirectUriSent: request.redirectUriSent !== false,
      codeChallenge: request.codeChallenge,
      ...(request.nonce ? { nonce: request.nonce } : {}),
      ...(request.confirmation ? { confirmation: request.confirmation } : {}),
      expiresAt: new Date(now + lifetimes.authorizationCode * 1000),
    };
    // Recorded before the code: an instance that dies after storing the code must not leave a grant whose consent
    // was never recorded (the form sent again finds the code and records nothing). Recording it twice (two answers
    // to one form) records the same consent.
    if (approved) {
      await this.consents.grant(session.userId, request.clientId, request.resource, approved);
      await this.events.record('consent.granted', {
        userId: session.userId,
        clientId: request.clientId,
        detail: { resource: request.resource, scopes: approved },
      });
    }
    const location = (value: string): string =>
      authorizationResponseUrl(request.redirectUri, this.options.issuer, {
        code: value,
        state: request.state,
      });
    let sent: string;
    if (flow.handle) {
      const value = randomToken();
      sent = location(value);
      const sealed = seal(ANSWER_INFO, flow.handle, flow.progress.browser ?? '', sent);
      const interaction = { id: pendingAuthorizationId(flow.handle), answer: sealed };
      // Not stored: another answer to it took it first (a form sent twice at once), or it expired.
      if (!(await this.grants.createWithCode(grant, code, { interaction, value }))) {
        return this.#answeredAlready(flow.handle, flow.cookies);
      }
    } else {
      sent = location(await this.grants.createWithCode(grant, code));
    }
    return { kind: 'redirect', location: sent };
  }

  /**
   * An answer (a form, the proxy's upstream callback) to a pending authorization that is gone: when a code ended it
   * and this is the browser it was for, still signed in to the session the code was issued in, the redirect that
   * took the code to the client, again, while the code is unused, unexpired and its grant not revoked (the first
   * answer was lost: a balancer sent the form again to another instance after the one that answered it died, or the
   * person sent it twice and the browser follows the second answer); otherwise the expired page. The redirect is
   * sealed with a key derived from the handle (stored only hashed) and bound to this browser, so neither a database
   * reader nor another browser can have it. Without the form's CSRF check, which needs the pending authorization:
   * what it prevents, a page making this browser send the form, gets this browser and session only what its own flow
   * already sent it.
   */
  async #answeredAlready(handle: string | undefined, cookies: CookieExchange): Promise<Answer> {
    const expired = page(400, expiredPage());
    const binding = this.sessions.existingBrowserBinding(cookies);
    if (!handle || binding === undefined) return expired;
    const code = await this.grants.interactionCode(pendingAuthorizationId(handle));
    if (!code?.answer || code.consumedAt || code.grantEnded || code.expiresAt.getTime() <= Date.now()) {
      return expired;
    }
    // The person who answered, still signed in: not whoever uses this browser after they signed out.
    const session = code.sessionId === null ? undefined : await this.sessions.current(cookies);
    if (session?.id !== code.sessionId) return expired;
    const location = unseal(ANSWER_INFO, handle, digest(binding), code.answer);
    if (typeof location !== 'string') return expired;
    this.#logger.log('an authorization answered already was asked for again: its redirect sent again');
    return { kind: 'redirect', location };
  }

  /** Stores the flow's progress; false when the pending authorization is gone. */
  #record(flow: HeldFlow): Promise<boolean> {
    return this.pending.record(flow.handle, flow.request, flow.progress);
  }

  /**
   * The flow of a handle, in the browser that started it; undefined when it is gone, a page when its client is gone
   * or when this is another browser. A pending authorization belongs to the browser whose `/authorize` request made
   * it: carried to another browser (a link sent to a victim, a leaked URL), it is neither continued there (which
   * would hand the client a code for whoever finishes it, with the starter's `state`: session swapping, RFC 6749
   * 10.12, RFC 9700 4.7) nor changed.
   */
  async #resume(handle: string | undefined, cookies: CookieExchange): Promise<HeldFlow | Answer | undefined> {
    if (!handle) return undefined;
    const pending = await this.pending.find(handle);
    if (!pending) return undefined;
    const binding = this.sessions.existingBrowserBinding(cookies);
    if (binding === undefined || pending.progress.browser !== digest(binding))
      return page(403, otherBrowserPage());
    const client = await this.clients.find(pending.request.clientId);
    if (!client) return page(400, errorPage('invalid_client', 'the client no longer exists'));
    const { session, consent } = await this.sessions.currentWithConsent(
      cookies,
      pending.request.clientId,
      pending.request.resource,
    );
    return this.#flow({
      handle,
      request: pending.request,
      progress: pending.progress,
      client,
      cookies,
      ...(session ? { session } : {}),
      ...(consent ? { consent } : {}),
    });
  }

  #step(path: string): InteractionStep {
    const step = this.#byPath.get(path);
    if (!step) throw new Error(`no interaction step at ${path}`);
    return step;
  }

  /** The CSRF token of `step`'s form: bound to the browser or the session, to this request and to the step. */
  #csrfToken(step: InteractionStep, flow: HeldFlow): string {
    const subject = formSubject(step, flow);
    if (step.form === 'session' && flow.session) return this.sessions.consentCsrfToken(flow.session, subject);
    return this.sessions.loginCsrfToken(this.sessions.browserBinding(flow.cookies), subject);
  }

  #csrfValid(step: InteractionStep, flow: HeldFlow, submitted: string | undefined): boolean {
    if (step.form === 'session') {
      return (
        flow.session !== undefined &&
        SessionService.tokensMatch(
          this.sessions.consentCsrfToken(flow.session, formSubject(step, flow)),
          submitted,
        )
      );
    }
    const binding = this.sessions.existingBrowserBinding(flow.cookies);
    return (
      binding !== undefined &&
      SessionService.tokensMatch(this.sessions.loginCsrfToken(binding, formSubject(step, flow)), submitted)
    );
  }
}

/** The label of the key an authorization's redirect is sealed with (see `tokens/sealed.ts`). */
const ANSWER_INFO = 'portcullis authorization answer v1';

/** What `prompt=none` answers say when a step needs the person (OIDC Core 3.1.2.6). */
const PROMPT_NONE_TEXT: Readonly<Record<string, string>> = {
  login_required: 'the user is not signed in',
  consent_required: 'the user has not approved this client',
  interaction_required: 'the user must confirm in the browser',
};

/** What a form's CSRF token is for: one step of one pending authorization. */
function formSubject(step: InteractionStep, flow: HeldFlow): string {
  return `${step.path ?? step.name}\n${flow.handle}`;
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

function page(status: number, html: string): Answer {
  return { kind: 'page', status, html };
}
