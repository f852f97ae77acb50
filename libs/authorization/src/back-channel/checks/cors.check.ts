// Rules kept: the Fetch standard's CORS protocol (https://fetch.spec.whatwg.org/#http-cors-protocol): an MCP client
// that runs in a browser calls these endpoints from another origin and can read the answer only when it carries
// `Access-Control-Allow-Origin`. No credentials are involved (`Access-Control-Allow-Credentials` is never sent), so
// `*` exposes nothing a cookie protects. Set before any other check, so errors are readable too.
import { allowCors } from '../../http/cors.js';
import type { BackChannelCheck } from '../back-channel-check.js';

/** The answer, success or error, may be read by a browser-based client from any origin. */
export const corsCheck: BackChannelCheck = {
  name: 'cors',
  run(context) {
    allowCors(context.reply);
  },
};
