import { defineExtension, type Extension } from '@portcullis/extensions';
import type { TrustedWorkloadIssuer } from './authorization-server/trusted-workload-issuers.js';
import { workloadIdentityGrant } from './authorization-server/workload-identity.grant.js';
import {
  workloadIdentityStrategy,
  type WorkloadIdentityStrategyOptions,
} from './client/workload-identity.strategy.js';
import { JWT_BEARER_GRANT, WORKLOAD_IDENTITY_ID, WORKLOAD_IDENTITY_STRATEGY } from './constants.js';

/** What each side of the extension is configured with; a side left out contributes nothing. */
export interface WorkloadIdentityOptions {
  /** Authorization server: the workload identity issuers it trusts, with their trust rules. */
  readonly trustedIssuers?: readonly TrustedWorkloadIssuer[];
  /** Client: where the workload's JWT comes from. */
  readonly client?: WorkloadIdentityStrategyOptions;
}

/**
 * Workload identity federation (MCP SEP-1933).
 * - On an authorization server that trusts workload identity issuers: the `urn:ietf:params:oauth:grant-type:jwt-bearer`
 *   grant for their workloads' JWTs, with no client registration (the trust rules establish the client), sharing
 *   the grant type with other extensions (it takes assertions from its issuers that are not ID-JAGs).
 * - On the client: the strategy that presents the workload's JWT.
 *
 * The grant is open to clients that register themselves: its authority is the operator's trust rules, and a
 * registered client gains nothing through it (it must be the rule's client, and a rule's client is never a client ID
 * metadata document URL).
 *
 * @see https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1933
 */
export function workloadIdentity(options: WorkloadIdentityOptions = {}): Extension {
  const trusted = options.trustedIssuers ?? [];
  return defineExtension({
    id: WORKLOAD_IDENTITY_ID,
    version: '0.1.0',
    ...(trusted.length > 0
      ? {
          authorizationServer: {
            grantTypes: { [JWT_BEARER_GRANT]: workloadIdentityGrant(trusted) },
            selfRegistrableGrantTypes: [JWT_BEARER_GRANT],
          },
        }
      : {}),
    ...(options.client
      ? {
          client: {
            grantStrategies: { [WORKLOAD_IDENTITY_STRATEGY]: workloadIdentityStrategy(options.client) },
          },
        }
      : {}),
  });
}
