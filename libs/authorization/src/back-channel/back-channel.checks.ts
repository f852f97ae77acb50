import type { BackChannelCheck } from './back-channel-check.js';
import { corsCheck } from './checks/cors.check.js';
import { deprecationCheck } from './checks/deprecation.check.js';
import { formBodyCheck } from './checks/form-body.check.js';
import { initialAccessTokenCheck } from './checks/initial-access-token.check.js';
import { jsonBodyCheck } from './checks/json-body.check.js';
import { noStoreCheck } from './checks/no-store.check.js';
import { plainTextCheck } from './checks/plain-text.check.js';
import { registrationBodySizeCheck } from './checks/registration-body-size.check.js';
import { singleParametersCheck } from './checks/single-parameters.check.js';

/**
 * The token endpoint's prologue, in the order it runs: open to browser-based clients, never cached, a form without
 * unsafe or repeated parameters.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.2
 */
export const TOKEN_ENDPOINT_CHECKS: readonly BackChannelCheck[] = [
  corsCheck,
  noStoreCheck,
  formBodyCheck('token'),
  plainTextCheck,
  singleParametersCheck,
];

/**
 * The introspection endpoint's prologue: as the token endpoint's, but not open to browsers (no CORS): its callers
 * are resource servers.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7662#section-2.1
 */
export const INTROSPECTION_ENDPOINT_CHECKS: readonly BackChannelCheck[] = [
  noStoreCheck,
  formBodyCheck('introspection'),
  plainTextCheck,
  singleParametersCheck,
];

/**
 * The revocation endpoint's prologue: as the token endpoint's.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7009#section-2.1
 */
export const REVOCATION_ENDPOINT_CHECKS: readonly BackChannelCheck[] = [
  corsCheck,
  noStoreCheck,
  formBodyCheck('revocation'),
  plainTextCheck,
  singleParametersCheck,
];

/**
 * The registration endpoint's prologue: open to browser-based clients, never cached (the answer may hold a secret),
 * the RFC 9745 deprecation notice, the initial access token when one is configured, then a JSON document (not a
 * form) of bounded size. The metadata checks (`REGISTRATION_CHECKS`) come after, in the registration service.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.1
 */
export const REGISTRATION_ENDPOINT_CHECKS: readonly BackChannelCheck[] = [
  corsCheck,
  noStoreCheck,
  deprecationCheck,
  initialAccessTokenCheck,
  jsonBodyCheck,
  registrationBodySizeCheck,
];

/**
 * The client configuration endpoint's prologue for a read or a delete (RFC 7592 2.1, 2.3), which carry no body; the
 * registration access token is checked by the registration service.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7592#section-2
 */
export const CLIENT_CONFIGURATION_CHECKS: readonly BackChannelCheck[] = [
  corsCheck,
  noStoreCheck,
  deprecationCheck,
];

/**
 * The client configuration endpoint's prologue for an update (RFC 7592 2.2): a JSON document of bounded size, as at
 * registration.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7592#section-2.2
 */
export const CLIENT_CONFIGURATION_UPDATE_CHECKS: readonly BackChannelCheck[] = [
  corsCheck,
  noStoreCheck,
  deprecationCheck,
  jsonBodyCheck,
  registrationBodySizeCheck,
];
