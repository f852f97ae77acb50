import { Inject, Injectable } from '@nestjs/common';
import { scopesSatisfy } from '@portcullis/protocol';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../../config/authorization-server.options.js';
import { ConsentRepository } from '../../consent/consent.repository.js';
import type { RequestParameters } from '../../http/request-parameters.js';
import { ResourceRegistry } from '../../resources/resource-registry.js';
import {
  ASK,
  CONTINUE,
  type Decision,
  type InteractionFlow,
  type InteractionStep,
} from '../flow/interaction-step.js';
import { endpointPath } from '../flow/paths.js';
import { consentPage } from '../pages/consent.page.js';
import { approvedScopes, pressedButton } from './approval.js';

/**
 * Consent: needed when this flow has not approved the request yet (on this page, or on the proxy's page before
 * going upstream) and the person's earlier consent does not cover it, or when the request says `prompt=consent`.
 * What is approved is recorded when the code is issued.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1 (the resource owner grants or denies access)
 * @see https://openid.net/specs/openid-connect-core-1_0.html#AuthRequest (prompt=consent)
 */
@Injectable()
export class ConsentStep implements InteractionStep {
  readonly name = 'consent';
  static readonly path = 'consent';
  readonly path = ConsentStep.path;
  readonly form = 'session' as const;
  readonly promptNoneError = 'consent_required';

  constructor(
    private readonly consents: ConsentRepository,
    private readonly resources: ResourceRegistry,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  async next(flow: InteractionFlow): Promise<Decision> {
    const { request, session, consent } = flow;
    if (flow.progress.approvedScopes) return CONTINUE;
    if (!session) throw new Error('interaction steps out of order: consent before sign-in');
    if (request.prompt.includes('consent')) return ASK;
    // The consent read with the session, when it is this user's for this client and resource; else read now.
    const stored =
      consent?.userId === session.userId &&
      consent.clientId === request.clientId &&
      consent.resource === request.resource
        ? consent.scopes
        : await this.consents.scopes(session.userId, request.clientId, request.resource);
    const hierarchy = this.resources.find(request.resource)?.scopeHierarchy;
    return stored && scopesSatisfy(stored, request.scopes, hierarchy) ? CONTINUE : ASK;
  }

  async show(
    flow: InteractionFlow & { handle: string },
    _query: RequestParameters,
    csrf: string,
  ): Promise<Decision> {
    return consentPageDecision(flow, this.resources, endpointPath(this.options.issuer, this.path), csrf);
  }

  async submit(flow: InteractionFlow & { handle: string }, form: RequestParameters): Promise<Decision> {
    return approve(flow, form);
  }
}

/**
 * The consent page of a flow (ours, or the proxy's with `signInHost`, where the person signs in next): the client,
 * the resource by name, the requested scopes, and the form posting to `action`.
 */
export function consentPageDecision(
  flow: InteractionFlow & { handle: string },
  resources: ResourceRegistry,
  action: string,
  csrf: string,
  signInHost?: string,
): Decision {
  const { request } = flow;
  return {
    kind: 'page',
    status: 200,
    html: consentPage({
      client: flow.client,
      redirectUri: request.redirectUri,
      resource: request.resource,
      resourceName: resources.find(request.resource)?.name ?? request.resource,
      scopes: request.scopes,
      action,
      interaction: flow.handle,
      csrf,
      ...(signInHost ? { signInHost } : {}),
    }),
  };
}

/**
 * The answer to a consent form (ours or the proxy's): `deny`, or `approve` with the scopes left ticked, only among
 * those requested (the form cannot widen the request). Approving nothing is denying.
 */
export function approve(flow: InteractionFlow, form: RequestParameters): Decision {
  const pressed = pressedButton(form, 'the user denied the request');
  if (pressed !== 'approve') return pressed;
  const approved = approvedScopes(flow.request.scopes, form.all('scope'));
  if (approved.length === 0)
    return { kind: 'error', error: 'access_denied', description: 'no scope was approved' };
  flow.progress = { ...flow.progress, approvedScopes: approved, acted: true };
  return CONTINUE;
}
