export {
  ENTERPRISE_MANAGED_AUTHORIZATION_ID,
  ID_JAG_GRANT_PROFILE,
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
export { idJagGrant, isIdJagRequest, subjectOf } from './authorization-server/id-jag.grant.js';
export {
  TrustedIdentityProviderSchema,
  TrustedIdentityProvidersSchema,
  type TrustedIdentityProvider,
} from './authorization-server/trusted-identity-providers.js';
export {
  IdJagAudienceSchema,
  IdJagAudiencesSchema,
  type IdJagAudience,
} from './identity-provider/id-jag-audiences.js';
export { ID_JAG_LIFETIME_SECONDS, idJagIssuance } from './identity-provider/id-jag-issuance.grant.js';
export { IdJagError, type IdJagErrorCode, type IdpError } from './client/id-jag.error.js';
export { idJagStrategy } from './client/id-jag.strategy.js';
export type { IdJagStrategyOptions, IdpPrivateKey } from './client/id-jag-strategy.options.js';
