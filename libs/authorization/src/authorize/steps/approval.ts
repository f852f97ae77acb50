import type { RequestParameters } from '../../http/request-parameters.js';
import type { Decision } from '../flow/interaction-step.js';
import { errorPage } from '../pages/error.page.js';

/** The requested scopes that were left ticked, in the order requested: a form cannot add a scope. */
export function approvedScopes(requested: readonly string[], ticked: readonly string[]): string[] {
  const set = new Set(ticked);
  return requested.filter((scope) => set.has(scope));
}

/**
 * The button of an interaction form the person pressed (`decision`): `approve`, or what `deny` means here
 * (`access_denied` with `deniedAs`), or a 400 page when the form names neither.
 */
export function pressedButton(form: RequestParameters, deniedAs: string): 'approve' | Decision {
  const decision = form.get('decision');
  if (decision === 'approve') return 'approve';
  if (decision === 'deny') return { kind: 'error', error: 'access_denied', description: deniedAs };
  return { kind: 'page', status: 400, html: errorPage('invalid_request', 'decision is required') };
}
