export { AuthorizationServerModule } from './authorization-server.module.js';
export type { AuthorizationServerModuleOptions } from './authorization-server.module.js';
export {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
  type ResourceDefinition,
  type TokenLifetimes,
} from './config/authorization-server.options.js';
export {
  CLAIM_SCOPES,
  ResourceRegistry,
  SERVER_SCOPES,
  type RegisteredResource,
} from './resources/resource-registry.js';
export { CLIENT_SOURCE, type ClientOrigin, type ClientSource, type OAuthClient } from './clients/client.js';
export { ClientRepository, type ClientRegistration, type NewClient } from './clients/client.repository.js';
export { generateClientSecret, hashClientSecret, verifyClientSecret } from './clients/client-secret.js';
export { PASSWORD_INTERACTION } from './authorization-server.module.js';
export {
  ASK,
  CONTINUE,
  INTERACTION_STEPS,
  type Decision,
  type FormBinding,
  type InteractionFlow,
  type InteractionStep,
  type InteractionStepType,
} from './authorize/flow/interaction-step.js';
export { InteractionService, type Answer } from './authorize/flow/interaction.service.js';
export { answer } from './authorize/flow/answer.js';
export { endpointPath } from './authorize/flow/paths.js';
export { RedirectTrust } from './authorize/flow/redirect-trust.js';
export { PendingAuthorizations } from './authorize/flow/pending-authorization.repository.js';
export {
  type InteractionProgress,
  type PendingAuthorization,
  type ValidatedAuthorization,
} from './authorize/flow/pending-authorization.js';
export { authorizationResponseUrl } from './authorize/flow/authorization-response.js';
export { ConsentStep, approve, consentPageDecision } from './authorize/steps/consent.step.js';
export { LoopbackConfirmationStep } from './authorize/steps/loopback-confirmation.step.js';
export { PasswordSignInStep } from './authorize/steps/password-sign-in.step.js';
export { signedInAsRequested, type AuthenticatedUser } from './authorize/steps/sign-in.js';
export { consentPage } from './authorize/pages/consent.page.js';
export { errorPage, expiredPage } from './authorize/pages/error.page.js';
export { signInRejectedPage, signInUnavailablePage } from './authorize/pages/sign-in-failure.page.js';
export { escapeHtml, page, PAGE_CSP } from './authorize/pages/layout.js';
export { hostOf, isLocalRedirect } from './authorize/pages/client-display.js';
export {
  CookieExchange,
  cookieName,
  readCookies,
  serializeCookie,
  signCookieValue,
  verifyCookieValue,
} from './http/cookies.js';
export { SessionService } from './sessions/session.service.js';
export { ConsentRepository } from './consent/consent.repository.js';
export { MetadataService } from './discovery/metadata.service.js';
export {
  SigningKeysService,
  SIGNING_ALGORITHM,
  KeyDecryptionError,
  KeyWithdrawalError,
  type RotatedSigningKey,
  type SigningKeyStatus,
} from './keys/signing-keys.service.js';
export {
  DEFAULT_JWKS_MAX_AGE,
  RESOURCE_SERVER_REFETCH_COOLDOWN,
  defaultActivationDelay,
} from './keys/signing-key-timing.js';
export { SigningKeyRepository, type NewSigningKey } from './keys/signing-key.repository.js';
export { open, parseKeyEncryptionKey, seal } from './keys/key-encryption.js';
export { UserRepository, type UserProfile } from './users/user.repository.js';
export { identityClaims, type IdentityClaims } from './userinfo/identity-claims.js';
export { hashPassword, verifyPassword } from './users/password-hasher.js';
export { GrantRepository } from './tokens/grant.repository.js';
export { TokenIssuer } from './tokens/token-issuer.service.js';
export { RequestParameters } from './http/request-parameters.js';
export { TOKEN_GRANTS, type TokenGrant } from './grants/token-grant.js';
export type { AuthenticatedOAuthClient } from './clients/client-authentication.js';
export { HousekeepingService, type SweepResult } from './housekeeping/housekeeping.service.js';
export { HousekeepingRepository, type ExpiredRowsDeleted } from './housekeeping/housekeeping.repository.js';
export { PeriodicSweep } from './housekeeping/periodic-sweep.js';
export { ClientResolver } from './clients/client-resolver.js';
export { ClientIdMetadataDocumentSource } from './clients/metadata-documents/client-id-metadata-document.source.js';
export {
  METADATA_DOCUMENT_LIMITS,
  type ClientIdMetadataDocumentsOptions,
  type HostLookup,
  type MetadataDocumentFetchOverrides,
  type MetadataDocumentLimits,
  type ResolvedAddress,
} from './clients/metadata-documents/client-id-metadata-documents.options.js';
export {
  MetadataDocumentRefusal,
  type MetadataDocumentRefusalReason,
} from './clients/metadata-documents/metadata-document-refusal.js';
export {
  DEFAULT_KEY_RELOAD_INTERVAL,
  type SigningKeyInfo,
  type SigningKeysOptions,
} from './keys/signing-keys.service.js';
export { type RegistrationOptions, type SigningKeyOptions } from './config/authorization-server.options.js';
export {
  RegistrationService,
  DYNAMIC_CLIENT_ID_PREFIX,
  type RegistrationResponse,
} from './registration/registration.service.js';
export { MAX_REGISTRATION_BODY } from './registration/registration.controller.js';
export { MAX_REDIRECT_URIS } from './registration/checks/redirect-uris.check.js';
export { IntrospectionService, type IntrospectionResponse } from './introspection/introspection.service.js';
export { IssuedTokens, type IssuedToken } from './introspection/issued-tokens.service.js';
export { RevocationService, type RevocationOutcome } from './revocation/revocation.service.js';
export {
  authorizationServerEnvFields,
  authorizationServerOptionsFromEnv,
  authorizationServerProductionRequirements,
  checkAuthorizationServerEnv,
  DEFAULT_RESOURCES,
  IssuerEnvSchema,
  type AuthorizationServerEnv,
  type AuthorizationServerHostOptions,
} from './config/authorization-server.env.js';
export { SecurityEventRepository } from './events/security-event.repository.js';
export type { NewSecurityEvent } from './events/security-event.repository.js';
export { SECURITY_EVENT_TYPES, SecurityEvents } from './events/security-events.js';
export type { SecurityEventFields, SecurityEventType } from './events/security-events.js';
export {
  ACCOUNT_SIGN_IN,
  PasswordAccountSignIn,
  type AccountSignIn,
  type AccountSignInForm,
} from './account/account-sign-in.js';
export {
  ACCOUNT_SECTIONS,
  type AccountSection,
  type AccountSectionOutcome,
  type AccountSectionSubmission,
  type AccountSectionView,
} from './account/account-section.js';
export { accountSignInPage, accountTime } from './account/account.page.js';
export { AccountRepository } from './account/account.repository.js';
export type { ConnectedApp } from './account/account.repository.js';
