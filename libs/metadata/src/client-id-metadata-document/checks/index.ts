import type { ClientIdMetadataDocumentCheck } from '../violation.js';
import { checkClientId } from './client-id.check.js';
import { checkClientName } from './client-name.check.js';
import { checkNoClientSecret } from './client-secret.check.js';
import { checkJwksExclusive } from './jwks-exclusive.check.js';
import { checkJwksHasOnlyPublicKeys } from './jwks-public-keys.check.js';
import { checkPrivateKeyJwtHasKeys } from './private-key-jwt-keys.check.js';
import { checkRedirectUris } from './redirect-uris.check.js';
import { checkNoSharedSecretAuthMethod } from './token-endpoint-auth-method.check.js';

/**
 * The rules a Client ID Metadata Document must keep, in the order their violations are reported. Every check
 * runs on every document: the result lists all broken rules, not the first.
 */
export const CLIENT_ID_METADATA_DOCUMENT_CHECKS: readonly ClientIdMetadataDocumentCheck[] = Object.freeze([
  checkClientId,
  checkClientName,
  checkRedirectUris,
  checkNoClientSecret,
  checkNoSharedSecretAuthMethod,
  checkJwksHasOnlyPublicKeys,
  checkPrivateKeyJwtHasKeys,
  checkJwksExclusive,
]);
