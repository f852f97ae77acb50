/**
 * Progress reporting: one event per step of the flow of MCP "Authorization Flow Steps", so a command line can
 * print one line each.
 * Events carry URLs, issuers, client IDs and scopes only; never a token, code, verifier or secret.
 */

/**
 * The steps of the authorization flow, in the order of MCP "Authorization Flow Steps", plus refresh and step-up.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-5
 */
export type ProgressStep =
  | 'challenge'
  | 'resource_metadata'
  | 'authorization_server'
  | 'client_id'
  | 'authorization_request'
  | 'callback'
  | 'token'
  | 'refresh'
  | 'step_up'
  | 'retry';

/**
 * One step of the flow, described for a person.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1
 */
export interface ProgressEvent {
  readonly step: ProgressStep;
  readonly message: string;
}

/**
 * Receives {@link ProgressEvent}s. It must not throw; what it throws is ignored.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1
 */
export type ProgressListener = (event: ProgressEvent) => void;

/** Calls the listener, ignoring what it throws: progress output must never break a flow. */
export function report(listener: ProgressListener | undefined, step: ProgressStep, message: string): void {
  try {
    listener?.({ step, message });
  } catch {
    // A faulty listener is the caller's problem, not the flow's.
  }
}
