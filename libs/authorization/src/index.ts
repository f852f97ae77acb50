export { AuthorizationServerModule } from './authorization-server.module.js';
export type { AuthorizationServerModuleOptions } from './authorization-server.module.js';
export {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
  type ResourceDefinition,
  type TokenLifetimes,
} from './config/authorization-server.options.js';
export { ResourceRegistry, SERVER_SCOPES, type RegisteredResource } from './resources/resource-registry.js';
export { CLIENT_SOURCE, isConfidential, type ClientSource, type OAuthClient } from './clients/client.js';
export { ClientRepository, type NewClient } from './clients/client.repository.js';
export { generateClientSecret, hashClientSecret, verifyClientSecret } from './clients/client-secret.js';
export { AUTHENTICATOR, type AuthenticatedUser, type Authenticator, type LoginContext } from './interaction/authenticator.js';
export { LocalPasswordAuthenticator } from './interaction/local-password.authenticator.js';
export { InteractionService } from './interaction/interaction.service.js';
export { escapeHtml, page, sendPage, errorPage, PAGE_CSP } from './interaction/html.js';
export { MetadataService } from './discovery/metadata.service.js';
export { SigningKeysService, SIGNING_ALGORITHM, KeyDecryptionError } from './keys/signing-keys.service.js';
export { parseKeyEncryptionKey } from './keys/key-encryption.js';
export { UserRepository } from './users/user.repository.js';
export { hashPassword, verifyPassword } from './users/password-hasher.js';
export { GrantRepository } from './tokens/grant.repository.js';
export { TokenIssuer } from './tokens/token-issuer.service.js';
export { RequestParameters } from './http/request-parameters.js';
export { HousekeepingService, type SweepResult } from './housekeeping/housekeeping.service.js';
