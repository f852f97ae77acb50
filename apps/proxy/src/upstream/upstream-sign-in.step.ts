import { Injectable } from '@nestjs/common';
import {
  ASK,
  CONTINUE,
  signedInAsRequested,
  type Decision,
  type InteractionFlow,
  type InteractionStep,
} from '@portcullis/authorization';
import { UpstreamRedirect } from './upstream-redirect.service.js';

/**
 * Signing in at the upstream authorization server: when the browser has no session (or for `prompt=login`), it is
 * sent upstream; the upstream callback (`callback/upstream-callback.controller.ts`) finishes the sign-in through
 * `InteractionService.completeSignIn`. Under `prompt=none` nothing goes upstream: the client hears `login_required`.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization#third-party-authorization-flow
 */
@Injectable()
export class UpstreamSignInStep implements InteractionStep {
  readonly name = 'upstream-sign-in';
  readonly promptNoneError = 'login_required';

  constructor(private readonly redirect: UpstreamRedirect) {}

  async next(flow: InteractionFlow): Promise<Decision> {
    if (signedInAsRequested(flow)) return CONTINUE;
    if (flow.request.prompt.includes('none')) return ASK;
    return this.redirect.forward(flow);
  }
}
