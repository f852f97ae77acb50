import { Inject, Injectable } from '@nestjs/common';
import {
  approve,
  ASK,
  AUTHORIZATION_SERVER_OPTIONS,
  consentPageDecision,
  CONTINUE,
  endpointPath,
  ResourceRegistry,
  signedInAsRequested,
  type AuthorizationServerOptions,
  type Decision,
  type InteractionFlow,
  type InteractionStep,
  type RequestParameters,
} from '@portcullis/authorization';
import { PROXY_OPTIONS, type ProxyOptions } from '../proxy.options.js';
import { ConsentCookies } from './consent-cookie.js';

/**
 * The proxy's consent, before the browser goes upstream: the proxy holds one static client ID at the upstream, so
 * an upstream that remembers the person would otherwise sign them in for any client that asks (the confused
 * deputy). Needed only when this flow is about to go upstream (no session, or `prompt=login`), unless this browser
 * holds a consent cookie for this very client, resource and scopes and the request does not say `prompt=consent`.
 * What is approved here is this flow's consent: the consent step after sign-in does not ask again, so a flow shows
 * at most one consent page.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#confused-deputy-problem
 */
@Injectable()
export class ConfirmClientStep implements InteractionStep {
  static readonly path = 'upstream/consent';
  readonly path = ConfirmClientStep.path;
  readonly name = 'confirm-client';
  readonly form = 'browser' as const;
  readonly promptNoneError = 'consent_required';

  constructor(
    private readonly resources: ResourceRegistry,
    private readonly consentCookies: ConsentCookies,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
    @Inject(PROXY_OPTIONS) private readonly proxy: ProxyOptions,
  ) {}

  async next(flow: InteractionFlow): Promise<Decision> {
    const { request } = flow;
    // Not going upstream (or prompt=none, which never does): the sign-in and consent steps decide.
    if (flow.progress.approvedScopes || signedInAsRequested(flow) || request.prompt.includes('none'))
      return CONTINUE;
    if (!request.prompt.includes('consent') && this.consentCookies.covers(flow.cookies, request))
      return CONTINUE;
    return ASK;
  }

  async show(
    flow: InteractionFlow & { handle: string },
    _query: RequestParameters,
    csrf: string,
  ): Promise<Decision> {
    const action = endpointPath(this.options.issuer, this.path);
    return consentPageDecision(flow, this.resources, action, csrf, new URL(this.proxy.upstream.issuer).host);
  }

  async submit(flow: InteractionFlow & { handle: string }, form: RequestParameters): Promise<Decision> {
    return approve(flow, form);
  }
}
