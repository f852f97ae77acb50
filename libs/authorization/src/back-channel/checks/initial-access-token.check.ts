// Rules kept: RFC 7591 3 (an authorization server may require an initial access token at the registration endpoint)
// and RFC 6750 3.1 (a missing or wrong one is 401 `invalid_token` with a `WWW-Authenticate: Bearer` challenge), as
// `checkInitialAccessToken` (registration/initial-access-token.check.ts) keeps them. Runs before the body is looked
// at: a caller without the token learns nothing about what the endpoint accepts.
import { checkInitialAccessToken } from '../../registration/initial-access-token.check.js';
import type { BackChannelCheck } from '../back-channel-check.js';

/** The request carries the configured initial access token, when one is configured. */
export const initialAccessTokenCheck: BackChannelCheck = {
  name: 'initial-access-token',
  run(context) {
    checkInitialAccessToken(
      context.options.registration?.initialAccessToken,
      context.request.headers.authorization,
    );
  },
};
