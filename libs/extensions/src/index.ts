export type { JsonObject, JsonValue } from './contracts/json.types.js';
export type { TokenResponse } from './contracts/token-response.types.js';
export type {
  AuthenticatedClient,
  AuthenticatedGrantRegistration,
  AuthorizationServerHooks,
  AuthorizationServerMetadataContext,
  ClientEstablishingGrantHandler,
  ClientEstablishingGrantRegistration,
  ClientEstablishingGrantRequest,
  GrantContext,
  GrantHandler,
  GrantRegistration,
  GrantRequest,
  GrantResult,
  GrantSelectionRequest,
  IssueTokensRequest,
  MetadataContribution,
  RegisteredClient,
  SignedJwt,
  SignJwtRequest,
} from './contracts/authorization-server.hooks.js';
export type {
  AuthorizationRequest,
  AuthorizationRequestCheck,
  AuthorizationRequestContext,
  ExtensionAttachments,
  NamedAuthorizationRequestCheck,
} from './contracts/authorization-request.hooks.js';
export type {
  TokenClaimsContext,
  TokenClaimsGrant,
  TokenClaimsHook,
  TokenClaimsRequest,
  TokenClaimsUser,
} from './contracts/token-claims.hooks.js';
export type {
  ChallengeContext,
  ChallengeParametersContribution,
  ResourceMetadataContext,
  ResourceServerHooks,
} from './contracts/resource-server.hooks.js';
export type {
  AuthorizationServerProofOfPossession,
  ClientProofOfPossession,
  Confirmation,
  HttpRequestView,
  PresentedToken,
  ProofRequest,
  ResourceProofContext,
  ResourceServerProofOfPossession,
  TokenRequestProof,
  TokenRequestProofContext,
} from './contracts/proof-of-possession.hooks.js';
export type { ClientGrantContext, ClientGrantStrategy, ClientHooks } from './contracts/client.hooks.js';
export { defineExtension, type Extension, type ExtensionSummary } from './contracts/extension.contract.js';
export {
  defineExtensionFactory,
  type ExtensionFactory,
  type ExtensionModuleContext,
} from './contracts/extension-module.contract.js';
export { extensionFromModule } from './registry/module-export.check.js';
export { isExtensionId } from './checks/extension-id.check.js';
export { isSemver } from './checks/semver.check.js';
export { isGrantTypeName, RESERVED_GRANT_TYPES } from './checks/grant-type.check.js';
export {
  RESERVED_AUTHORIZATION_SERVER_METADATA,
  RESERVED_RESOURCE_METADATA,
} from './checks/metadata-field.check.js';
export { RESERVED_TOKEN_CLAIMS } from './checks/token-claim.check.js';
export {
  isChallengeParameterName,
  isChallengeParameterValue,
  RESERVED_CHALLENGE_PARAMETERS,
} from './checks/challenge-parameter.check.js';
export {
  ExtensionRegistryError,
  type ExtensionRegistryErrorCode,
} from './registry/extension-registry.error.js';
export { isExtensionModuleSpecifier, readExtensionNames } from './registry/extension-names.js';
export {
  ExtensionRegistry,
  type RegisteredAuthorizationRequestCheck,
  type RegisteredClientGrantStrategy,
  type RegisteredGrant,
} from './registry/extension.registry.js';
