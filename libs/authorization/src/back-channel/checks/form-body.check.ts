// Rules kept: RFC 6749 3.2 and 4.1.3 (a token request is a POST with an `application/x-www-form-urlencoded` body),
// which RFC 7662 2.1 (introspection) and RFC 7009 2.1 (revocation) repeat. Any other media type is refused before
// its content is looked at; the form is read from the bytes as received, so that repeated and unsafe parameters are
// still visible to the checks after this one.
import { OAuthError } from '@portcullis/protocol';
import { mediaType, RequestParameters } from '../../http/request-parameters.js';
import type { BackChannelCheck } from '../back-channel-check.js';

/**
 * The body is a form, and its parameters are read; `request` names the request in the refusal (`the token request
 * must be application/x-www-form-urlencoded`).
 */
export function formBodyCheck(request: 'token' | 'introspection' | 'revocation'): BackChannelCheck {
  return {
    name: 'form-body',
    run(context) {
      if (mediaType(context.request.headers['content-type']) !== 'application/x-www-form-urlencoded') {
        throw new OAuthError(
          'invalid_request',
          `the ${request} request must be application/x-www-form-urlencoded`,
        );
      }
      context.params = RequestParameters.fromForm(context.rawBody);
    },
  };
}
