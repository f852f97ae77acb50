export {
  ID_JAG_TYP,
  JWT_BEARER_GRANT,
  WORKLOAD_IDENTITY_ID,
  WORKLOAD_IDENTITY_STRATEGY,
} from './constants.js';
export { workloadIdentity, type WorkloadIdentityOptions } from './workload-identity.extension.js';
export { workloadIdentityGrant, workloadSubject } from './authorization-server/workload-identity.grant.js';
export { subjectMatcher } from './authorization-server/subject-pattern.js';
export {
  SubjectRuleSchema,
  TrustedWorkloadIssuerSchema,
  TrustedWorkloadIssuersSchema,
  type SubjectRule,
  type TrustedWorkloadIssuer,
} from './authorization-server/trusted-workload-issuers.js';
export {
  WorkloadIdentityError,
  workloadIdentityStrategy,
  type WorkloadIdentityErrorCode,
  type WorkloadIdentityStrategyOptions,
} from './client/workload-identity.strategy.js';
