import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestParameters } from '../http/request-parameters.js';

/** A person who has signed in: the local user id (the token `sub`) and a name to show. */
export interface AuthenticatedUser {
  readonly id: string;
  readonly username: string;
}

/** What the login page needs to know about the pending authorization. */
export interface LoginContext {
  /** The pending authorization's handle, carried by the form. */
  readonly interaction: string;
  /** The CSRF token the form must send back as `csrf`. */
  readonly csrfToken: string;
  /** The form's action URL. */
  readonly action: string;
  readonly clientName: string;
  /** Set after a failed attempt. */
  readonly failed: boolean;
}

/**
 * How users sign in. The authorization server's is a local username and password form; the proxy's sends the
 * browser to an upstream authorization server. `/login` calls `showLogin`; a POST to `/login` calls `verify`; an
 * authenticator that signs users in elsewhere completes through `InteractionService.completeLogin` instead.
 */
export interface Authenticator {
  /** Answers GET /login: renders a form or redirects the browser. */
  showLogin(context: LoginContext, request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Checks a submitted login form; undefined when the credentials are wrong. */
  verify(form: RequestParameters): Promise<AuthenticatedUser | undefined>;
}

/** Injection token of the app's {@link Authenticator}. */
export const AUTHENTICATOR = 'portcullis:authenticator';
