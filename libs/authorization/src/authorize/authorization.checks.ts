import type { AuthorizationCheck } from './authorization-check.js';
import { clientIdCheck } from './checks/client-id.check.js';
import { extensionChecks } from './checks/extension.check.js';
import { pkceCheck } from './checks/pkce.check.js';
import { plainTextCheck } from './checks/plain-text.check.js';
import { promptCheck } from './checks/prompt.check.js';
import { proofOfPossessionCheck } from './checks/proof-of-possession.check.js';
import { redirectUriCheck } from './checks/redirect-uri.check.js';
import { resourceCheck } from './checks/resource.check.js';
import { responseTypeCheck } from './checks/response-type.check.js';
import { scopeCheck } from './checks/scope.check.js';
import { singleParametersCheck } from './checks/single-parameters.check.js';

/**
 * The authorization endpoint's checks, in the order they run. The first three decide whether an error may be sent
 * back to the client at all; everything after them reports to the validated redirect URI.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1
 */
export const AUTHORIZATION_CHECKS: readonly AuthorizationCheck[] = [
  plainTextCheck,
  clientIdCheck,
  redirectUriCheck,
  singleParametersCheck,
  responseTypeCheck,
  pkceCheck,
  resourceCheck,
  scopeCheck,
  promptCheck,
  proofOfPossessionCheck,
  extensionChecks,
];
