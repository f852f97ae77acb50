export {
  REFUSED_URL_SCHEMES,
  EndpointUrlSchema,
  IssuerUrlSchema,
  RedirectUriSchema,
  WebPageUrlSchema,
  describeUrlProblem,
  findUrlProblem,
  hasRefusedUrlScheme,
  isLoopbackHostname,
  safeUrl,
  type SafeUrlOptions,
  type UrlProblem,
} from './schemas/safe-url.schema.js';
export {
  BROWSER_SCHEMES,
  describeRedirectUriProblem,
  findRedirectUriProblem,
  isReverseDomainScheme,
  privateUseSchemeProblem,
  redirectUriKind,
  uriScheme,
  type RedirectUriKind,
  type RedirectUriProblem,
} from './schemas/redirect-uri.rules.js';
export {
  ScopeStringSchema,
  ScopeTokenSchema,
  SigningAlgorithmListSchema,
} from './schemas/metadata-fields.schema.js';
export {
  JwkSchema,
  JwkSetSchema,
  PRIVATE_JWK_MEMBERS,
  type Jwk,
  type JwkSet,
} from './schemas/jwk-set.schema.js';
export {
  ProtectedResourceMetadataSchema,
  type ProtectedResourceMetadata,
} from './schemas/protected-resource-metadata.schema.js';
export {
  AuthorizationServerMetadataSchema,
  type AuthorizationServerMetadata,
} from './schemas/authorization-server-metadata.schema.js';
export {
  OpenIdProviderMetadataSchema,
  type OpenIdProviderMetadata,
} from './schemas/openid-provider-metadata.schema.js';
export {
  CLIENT_NAME_INVISIBLE_CHARACTERS,
  ClientNameSchema,
  describeInvisibleCharacter,
  findInvisibleCharacter,
} from './schemas/client-name.schema.js';
export { ClientMetadataSchema, type ClientMetadata } from './schemas/client-metadata.schema.js';
export {
  ClientIdMetadataDocumentSchema,
  type ClientIdMetadataDocument,
} from './schemas/client-id-metadata-document.schema.js';
export {
  ClientRegistrationResponseSchema,
  type ClientRegistrationResponse,
} from './schemas/client-registration-response.schema.js';
export { TokenResponseSchema, type TokenResponse } from './schemas/token-response.schema.js';
export { OAuthErrorResponseSchema, type OAuthErrorResponse } from './schemas/oauth-error-response.schema.js';
export {
  isClientIdMetadataUrl,
  isLoopbackClientIdMetadataUrl,
} from './client-id-metadata-document/client-id-metadata-url.check.js';
export {
  validateClientIdMetadataDocument,
  type ClientIdMetadataDocumentValidation,
} from './client-id-metadata-document/validate-client-id-metadata-document.js';
export type {
  ClientIdMetadataDocumentRule,
  ClientIdMetadataDocumentViolation,
} from './client-id-metadata-document/violation.js';
export { jsonListEnvSchema } from './schemas/json-list-env.schema.js';
