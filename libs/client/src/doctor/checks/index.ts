/**
 * Every check `portcullis doctor` runs, in order: what a client meets first comes first (the 401 and its challenge,
 * the resource metadata, each authorization server's metadata), then the metadata as a whole, then, with a token,
 * how the server treats tokens, and last what a browser client meets. Checks of an authorization server run as one
 * block per server the resource metadata names. Each file opens with the rules it keeps and their sections.
 */
import type { DiagnosticCheck } from '../doctor-check.js';
import { asClientIdMetadataDocumentCheck } from './as-client-id-metadata-document.check.js';
import { asCimdNoneCheck } from './as-cimd-none.check.js';
import { asDiscoveryCheck } from './as-discovery.check.js';
import { asIssCheck } from './as-iss.check.js';
import { asIssuerIdenticalCheck } from './as-issuer-identical.check.js';
import { asIssuerCheck } from './as-issuer.check.js';
import { asMetadataCheck } from './as-metadata.check.js';
import { asPkceCheck } from './as-pkce.check.js';
import { asRegistrationCheck } from './as-registration.check.js';
import { challengeResourceMetadataCheck } from './challenge-resource-metadata.check.js';
import { challengeSchemeCheck } from './challenge-scheme.check.js';
import { challengeScopeCheck } from './challenge-scope.check.js';
import { challengeStatusCheck } from './challenge-status.check.js';
import { corsWwwAuthenticateCheck } from './cors-www-authenticate.check.js';
import { metadataHttpsCheck } from './metadata-https.check.js';
import { prmAuthorizationServersCheck } from './prm-authorization-servers.check.js';
import { prmChallengeUrlCheck } from './prm-challenge-url.check.js';
import { prmConsistentCheck } from './prm-consistent.check.js';
import { prmFoundCheck } from './prm-found.check.js';
import { prmPathAwareCheck } from './prm-path-aware.check.js';
import { prmRootCheck } from './prm-root.check.js';
import { prmScopesSupportedCheck } from './prm-scopes-supported.check.js';
import { scopesOfflineAccessCheck } from './scopes-offline-access.check.js';
import { serverReachableCheck } from './server-reachable.check.js';
import { tokenAcceptedCheck } from './token-accepted.check.js';
import { tokenAudienceCheck } from './token-audience.check.js';
import { tokenBodyCheck } from './token-body.check.js';
import { tokenInsufficientScopeCheck } from './token-insufficient-scope.check.js';
import { tokenQueryCheck } from './token-query.check.js';
import { tokenCheck } from './token.check.js';

/**
 * The checks, in the order they run and report.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 */
export const DOCTOR_CHECKS: readonly DiagnosticCheck[] = Object.freeze([
  serverReachableCheck,
  challengeStatusCheck,
  challengeSchemeCheck,
  challengeResourceMetadataCheck,
  challengeScopeCheck,
  prmPathAwareCheck,
  prmRootCheck,
  prmChallengeUrlCheck,
  prmFoundCheck,
  prmAuthorizationServersCheck,
  prmScopesSupportedCheck,
  prmConsistentCheck,
  // Once for each authorization server the resource metadata names:
  asIssuerCheck,
  asDiscoveryCheck,
  asMetadataCheck,
  asIssuerIdenticalCheck,
  asPkceCheck,
  asIssCheck,
  asClientIdMetadataDocumentCheck,
  asCimdNoneCheck,
  asRegistrationCheck,
  scopesOfflineAccessCheck,
  // The metadata as a whole, then tokens, then browsers:
  metadataHttpsCheck,
  tokenCheck,
  tokenAcceptedCheck,
  tokenQueryCheck,
  tokenBodyCheck,
  tokenAudienceCheck,
  tokenInsufficientScopeCheck,
  corsWwwAuthenticateCheck,
]);
