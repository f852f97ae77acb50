import { Inject, Injectable } from '@nestjs/common';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../../config/authorization-server.options.js';
import type { RequestParameters } from '../../http/request-parameters.js';
import {
  ASK,
  CONTINUE,
  type Decision,
  type InteractionFlow,
  type InteractionStep,
} from '../flow/interaction-step.js';
import { endpointPath } from '../flow/paths.js';
import { isLocalRedirect, isPrivateUseRedirect } from '../pages/client-display.js';
import { continuePage } from '../pages/continue.page.js';
import { pressedButton } from './approval.js';

/**
 * A native application's client (`application_type` native), and any client on a loopback or private-use redirect
 * URI, never gets a code without an action of the person in this browser. Any local program can listen on a
 * loopback port, or claim a URI scheme, and open an authorization URL with its own PKCE pair; without this step, a
 * person who approved the client once would hand such a program a code silently. A client secret does not change
 * that: one shipped in an application on a device can be read out of it by another (RFC 8252 8.5), so it proves
 * nothing about which program asks. When nothing in this flow was clicked or typed (a session and an earlier consent
 * let it through), one click on "Continue" releases the code. Only web clients on https redirect URIs (a server that
 * the redirect reaches and a program on this device cannot pose as) keep silent re-authorization.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-8.5
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-8.6
 */
@Injectable()
export class LoopbackConfirmationStep implements InteractionStep {
  readonly name = 'loopback-confirmation';
  static readonly path = 'continue';
  readonly path = LoopbackConfirmationStep.path;
  readonly form = 'session' as const;
  readonly promptNoneError = 'interaction_required';

  constructor(@Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions) {}

  async next(flow: InteractionFlow): Promise<Decision> {
    const onDevice =
      flow.client.applicationType === 'native' ||
      isLocalRedirect(flow.request.redirectUri) ||
      isPrivateUseRedirect(flow.request.redirectUri);
    const needed = onDevice && flow.progress.acted !== true;
    return needed ? ASK : CONTINUE;
  }

  async show(
    flow: InteractionFlow & { handle: string },
    _query: RequestParameters,
    csrf: string,
  ): Promise<Decision> {
    return {
      kind: 'page',
      status: 200,
      html: continuePage({
        clientName: flow.client.clientName ?? flow.client.clientId,
        redirectUri: flow.request.redirectUri,
        action: endpointPath(this.options.issuer, this.path),
        interaction: flow.handle,
        csrf,
      }),
    };
  }

  async submit(flow: InteractionFlow & { handle: string }, form: RequestParameters): Promise<Decision> {
    const pressed = pressedButton(form, 'the user cancelled');
    if (pressed !== 'approve') return pressed;
    flow.progress = { ...flow.progress, acted: true };
    return CONTINUE;
  }
}
