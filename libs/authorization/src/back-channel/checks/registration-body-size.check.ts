// Rules kept: RFC 7591 3.1 (the registration request is one client metadata document) is held to
// `MAX_REGISTRATION_BODY` bytes, well below the platform's 64 KiB for every route; more is 413
// (RFC 9110 15.5.14), the `body_too_large` refusal of `HTTP_REFUSALS`. Measured by `Content-Length` and by the bytes
// received, so a chunked body cannot pass unmeasured.
import { HttpRefusalError } from '@portcullis/protocol';
import type { BackChannelCheck } from '../back-channel-check.js';

/**
 * The largest registration request accepted, in bytes (the platform's own limit for every route is 64 KiB).
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.1
 */
export const MAX_REGISTRATION_BODY = 16 * 1024;

/** The registration document is at most {@link MAX_REGISTRATION_BODY} bytes. */
export const registrationBodySizeCheck: BackChannelCheck = {
  name: 'registration-body-size',
  run(context) {
    const declared = Number(context.request.headers['content-length'] ?? 0);
    const received = context.rawBody?.length ?? 0;
    if (declared > MAX_REGISTRATION_BODY || received > MAX_REGISTRATION_BODY) {
      throw new HttpRefusalError('body_too_large');
    }
  },
};
