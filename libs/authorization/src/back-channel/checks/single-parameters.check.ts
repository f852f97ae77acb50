// Rules kept: RFC 6749 3.1 and 3.2 ("Request and response parameters MUST NOT be included more than once"),
// RFC 6749 5.2 (`invalid_request`); RFC 8707 2 allows `resource` several times.
import { establishedParameters, type BackChannelCheck } from '../back-channel-check.js';

/** No form parameter other than `resource` is repeated. */
export const singleParametersCheck: BackChannelCheck = {
  name: 'single-parameters',
  run(context) {
    establishedParameters(context).assertNoRepeats();
  },
};
