import type { LoginSession } from '@portcullis/persistence';
import type { OAuthClient } from '../../clients/client.js';
import type { CookieExchange } from '../../http/cookies.js';
import type { RequestParameters } from '../../http/request-parameters.js';
import type { StoredConsent } from '../../sessions/session.service.js';
import type { InteractionProgress, ValidatedAuthorization } from './pending-authorization.js';

/**
 * One authorization on its way from `/authorize` to the code, as the steps see it during one HTTP request: the
 * pending request (read once, validated), the client (resolved once), the browser's session, and the cookies.
 * Steps change `progress` and `session`; the interaction service stores the progress.
 */
export interface InteractionFlow {
  /** The handle of the stored pending authorization; absent until a step needs the person (then it is saved). */
  handle?: string;
  readonly request: ValidatedAuthorization;
  readonly client: OAuthClient;
  progress: InteractionProgress;
  /** The live login session of this browser, if any. */
  session?: LoginSession;
  /**
   * The consent to this client for this resource of the session's user, read with the session at the start of the
   * request. Only for that user: a step that signs someone else in leaves it to be read again.
   */
  readonly consent?: StoredConsent;
  readonly cookies: CookieExchange;
  /** Stores the request and its progress (saving it on first need) and returns the handle. */
  persist(): Promise<string>;
}

/**
 * What a step decided. `continue`: the flow may go past it. `ask`: it needs the person, on its page (under
 * `prompt=none`, an error for the client instead). `page` and `redirect`: answer the browser with this.
 * `error`: the authorization ends with this OAuth error for the client, sent as the redirect trust policy allows.
 */
export type Decision =
  | { readonly kind: 'continue' }
  | { readonly kind: 'ask' }
  | { readonly kind: 'page'; readonly status: number; readonly html: string }
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'error'; readonly error: string; readonly description: string };

export const CONTINUE: Decision = { kind: 'continue' };
export const ASK: Decision = { kind: 'ask' };

/** Which CSRF token a step's form carries: one bound to the browser (before sign-in) or to the session. */
export type FormBinding = 'browser' | 'session';

/**
 * One step of the interaction (sign in, consent, confirm, ...). The interaction walks its steps in order on
 * every request; each says whether the flow may go past it. A step that asks the person has a page at `path`
 * (under the issuer): GET shows it, POST (after the CSRF check of `form`) answers it.
 */
export interface InteractionStep {
  readonly name: string;
  /** The path of this step's page and form, under the issuer; absent for a step without one. */
  readonly path?: string;
  /** The CSRF binding of this step's form. */
  readonly form?: FormBinding;
  /** Whether POSTs to this step count against the `login` rate limit (a form that checks a password). */
  readonly rateLimited?: boolean;
  /** The OAuth error when this step needs the person and the request said `prompt=none`. */
  readonly promptNoneError: string;
  /** Whether the flow may go past this step now. */
  next(flow: InteractionFlow): Promise<Decision>;
  /** GET `path`: the page; `csrf` is the token its form must send back. */
  show?(
    flow: InteractionFlow & { handle: string },
    query: RequestParameters,
    csrf: string,
  ): Promise<Decision>;
  /** POST `path`, CSRF already checked: the person's answer. `continue` walks on from the first step. */
  submit?(flow: InteractionFlow & { handle: string }, form: RequestParameters): Promise<Decision>;
}

/** Injection token of the ordered {@link InteractionStep}s. */
export const INTERACTION_STEPS = 'portcullis:interaction-steps';

/**
 * A step class as the module takes it: the route of its page is read from the class (`static path`, `static
 * rateLimited`), because routes are declared before any step exists.
 */
export type InteractionStepType = (new (...args: never[]) => InteractionStep) & {
  readonly path?: string;
  readonly rateLimited?: boolean;
};
