export {
  OAUTH_ERROR_CODES,
  OAUTH_ERROR_STATUS,
  OAuthError,
  isOAuthErrorCode,
  type OAuthErrorCode,
  type OAuthErrorResponseBody,
} from './oauth-error.js';
export { canonicalizeResourceUri } from './resource-uri.js';
export {
  WELL_KNOWN_PATHS,
  authorizationServerMetadataUrls,
  protectedResourceMetadataUrls,
  sameIssuerIdentifier,
  type AuthorizationServerMetadataUrlOptions,
} from './well-known.js';
export { formatWwwAuthenticate, parseWwwAuthenticate, type Challenge } from './www-authenticate.js';
export {
  expandScopes,
  formatScope,
  isScopeToken,
  missingScopes,
  parseScope,
  scopesSatisfy,
  unionScopes,
  type ScopeHierarchy,
  type ScopeInput,
} from './scopes.js';
export { isLoopbackIpLiteral, redirectUriMatches } from './redirect-uri.js';
export { isLoopbackHost, issuerIdentifierProblem } from './loopback.js';
export { findUnsafeJsonText, hasUnsafeCharacter } from './plain-text.js';
export {
  HTTP_REFUSALS,
  HttpRefusalError,
  describeFrameworkRefusal,
  type HttpRefusal,
  type HttpRefusalName,
} from './http-refusal.js';
export {
  PKCE_METHOD_S256,
  codeChallengeS256,
  generateCodeVerifier,
  isCodeVerifier,
  isS256CodeChallenge,
  verifyCodeChallenge,
} from './pkce.js';
export {
  checkAuthorizationResponseIssuer,
  type IssuerCheckFailure,
  type IssuerCheckResult,
} from './issuer-check.js';
export { ASYMMETRIC_SIGNING_ALGORITHMS } from './jws-algorithms.js';
export { cacheLifetimeSeconds, type CacheBounds } from './cache-lifetime.js';
export { constantTimeEqual } from './constant-time.js';
export { publicJwkSet } from './jwk-set.js';
export {
  ASSERTION_CLOCK_TOLERANCE_SECONDS,
  MAX_JTI_LENGTH,
  decodeJwtAssertion,
  verifyJwtAssertion,
  type JwtAssertionErrorCode,
  type JwtAssertionKeys,
  type JwtAssertionPolicy,
  type RecordJwtId,
  type VerifiedJwtAssertion,
} from './jwt-assertion.js';
export { CONNECTION_NAME, isConnectionName } from './connection-name.js';
