// Rules kept: RFC 6749 5.1 (a response carrying tokens, credentials or other sensitive information has
// `Cache-Control: no-store` and `Pragma: no-cache`). Set before any rule can refuse, so errors carry it too.
import type { BackChannelCheck } from '../back-channel-check.js';

/** No cache keeps the answer. */
export const noStoreCheck: BackChannelCheck = {
  name: 'no-store',
  run(context) {
    context.reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  },
};
