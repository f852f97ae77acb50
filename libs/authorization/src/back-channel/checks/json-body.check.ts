// Rules kept: RFC 7591 3.1 and RFC 7592 2.2 (client metadata is sent as an `application/json` document, not a
// form); anything else is 415 (RFC 9110 15.5.16), the `unsupported_media_type` refusal of `HTTP_REFUSALS`, before
// the body is looked at.
import { HttpRefusalError } from '@portcullis/protocol';
import { mediaType } from '../../http/request-parameters.js';
import type { BackChannelCheck } from '../back-channel-check.js';

/** The body is JSON. */
export const jsonBodyCheck: BackChannelCheck = {
  name: 'json-body',
  run(context) {
    if (mediaType(context.request.headers['content-type']) !== 'application/json') {
      throw new HttpRefusalError('unsupported_media_type');
    }
  },
};
