import { Inject, Injectable } from '@nestjs/common';
import type { LoginSession } from '@portcullis/persistence';
import type { OAuthClient } from '../../clients/client.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../../config/authorization-server.options.js';
import { ConsentRepository } from '../../consent/consent.repository.js';
import { returnToClientPage } from '../pages/error.page.js';
import { authorizationResponseUrl } from './authorization-response.js';
import type { Decision } from './interaction-step.js';

/** Where an authorization error goes: the client's validated redirect URI, with its `state`. */
export interface ErrorTarget {
  readonly client: OAuthClient;
  readonly redirectUri: string;
  readonly state?: string;
}

/**
 * The one redirect trust policy of every authorization error and denial (the authorization server's and the
 * proxy's): the browser is sent to the client's redirect URI automatically only when that URI is trusted, that is
 * when the operator registered the client, or when the person at this browser approved the client before. For
 * anyone else (a client that registered itself, or a client ID metadata document, never approved here) the answer
 * is a page that explains the error and offers the client's response as a link: an authorization server that
 * bounces any browser to any self-registered URI is an open redirector.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.11.2
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#open-redirection
 */
@Injectable()
export class RedirectTrust {
  constructor(
    private readonly consents: ConsentRepository,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  /** Whether an error for `client` may be sent to its redirect URI without the person's click. */
  async trusts(client: OAuthClient, session: LoginSession | undefined): Promise<boolean> {
    if (client.origin === 'preregistered') return true;
    return session !== undefined && (await this.consents.any(session.userId, client.clientId));
  }

  /** The answer for an authorization that ends with `error`: a redirect to the client, or a page with a link. */
  async error(
    target: ErrorTarget,
    session: LoginSession | undefined,
    error: string,
    description: string | undefined,
  ): Promise<Extract<Decision, { kind: 'page' | 'redirect' }>> {
    const location = authorizationResponseUrl(target.redirectUri, this.options.issuer, {
      error,
      error_description: description,
      state: target.state,
    });
    if (await this.trusts(target.client, session)) return { kind: 'redirect', location };
    return {
      kind: 'page',
      status: error === 'access_denied' ? 200 : 400,
      html: returnToClientPage({
        clientName: target.client.clientName ?? target.client.clientId,
        error,
        ...(description ? { description } : {}),
        location,
      }),
    };
  }
}
