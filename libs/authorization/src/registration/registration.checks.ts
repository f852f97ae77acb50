import type { RegistrationCheck } from './registration-check.js';
import { applicationTypeCheck } from './checks/application-type.check.js';
import { grantTypesCheck } from './checks/grant-types.check.js';
import { jsonObjectCheck } from './checks/json-object.check.js';
import { metadataSchemaCheck } from './checks/metadata-schema.check.js';
import { plainTextCheck } from './checks/plain-text.check.js';
import { redirectUrisCheck } from './checks/redirect-uris.check.js';
import { tokenEndpointAuthMethodCheck } from './checks/token-endpoint-auth-method.check.js';

/**
 * The registration endpoint's checks on the client metadata, in the order they run. The transport rules (body
 * size, media type, initial access token, rate limit) come before them, in the controller.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.1
 */
export const REGISTRATION_CHECKS: readonly RegistrationCheck[] = [
  jsonObjectCheck,
  plainTextCheck,
  metadataSchemaCheck,
  grantTypesCheck,
  redirectUrisCheck,
  applicationTypeCheck,
  tokenEndpointAuthMethodCheck,
];
