// Rules kept: OIDC Core 3.1.2.1 (`prompt` is a space-delimited list of none, login, consent, select_account;
// `none` with any other value is an error). Unknown values are refused rather than ignored.
import { OAuthError } from '@portcullis/protocol';
import type { AuthorizationCheck } from '../authorization-check.js';

const PROMPT_VALUES = new Set(['none', 'login', 'consent', 'select_account']);

/** `prompt`, if present, is a valid combination. */
export const promptCheck: AuthorizationCheck = {
  name: 'prompt',
  beforeRedirect: false,
  run(context) {
    const values = (context.params.get('prompt') ?? '').split(' ').filter(Boolean);
    const prompt = new Set(values);
    for (const value of prompt) {
      if (!PROMPT_VALUES.has(value))
        throw new OAuthError('invalid_request', `unsupported prompt value: ${value}`);
    }
    if (prompt.has('none') && prompt.size > 1) {
      throw new OAuthError('invalid_request', 'prompt=none cannot be combined with other values');
    }
    context.prompt = prompt;
  },
};
