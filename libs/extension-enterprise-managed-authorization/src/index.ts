export {
  ENTERPRISE_MANAGED_AUTHORIZATION_ID,
  ID_JAG_STRATEGY,
  ID_JAG_TOKEN_TYPE,
  ID_JAG_TYP,
  ID_TOKEN_TYPE,
  JWT_BEARER_GRANT,
  TOKEN_EXCHANGE_GRANT,
} from './constants.js';
export {
  enterpriseManagedAuthorization,
  type EnterpriseManagedAuthorizationOptions,
} from './enterprise-managed-authorization.extension.js';
export { idJagGrant, subjectOf } from './authorization-server/id-jag.grant.js';
export {
  TrustedIdentityProviderSchema,
  TrustedIdentityProvidersSchema,
  type TrustedIdentityProvider,
} from './authorization-server/trusted-identity-providers.js';
export {
  IdJagError,
  idJagStrategy,
  type IdJagErrorCode,
  type IdJagStrategyOptions,
  type IdpError,
} from './client/id-jag.strategy.js';
