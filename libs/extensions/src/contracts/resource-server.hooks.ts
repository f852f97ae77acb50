import type { MetadataContribution } from './authorization-server.hooks.js';
import type { ResourceServerProofOfPossession } from './proof-of-possession.hooks.js';

/**
 * What the host knows when it builds its protected resource metadata document.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3
 */
export interface ResourceMetadataContext {
  /** The protected resource's identifier, exactly as published in `resource`. */
  readonly resource: string;
  /** The MCP authorization revision in force, e.g. `2026-07-28`. */
  readonly revision: string;
}

/**
 * What the host knows when it writes a `WWW-Authenticate` challenge for a 401 or 403 response.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-5.1
 */
export interface ChallengeContext {
  readonly status: 401 | 403;
  /** The RFC 6750 section 3.1 error code, absent when the request carried no token. */
  readonly error?: string;
  readonly resource: string;
  readonly revision: string;
}

/**
 * Extra auth-parameters of the `Bearer` challenge: a fixed record or a function of the challenge's context.
 * Names are RFC 9110 tokens; values are plain strings (the host quotes and escapes them).
 *
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-11.2
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3
 */
export type ChallengeParametersContribution =
  Readonly<Record<string, string>> | ((context: ChallengeContext) => Readonly<Record<string, string>>);

/**
 * The resource server side of an extension. Every hook is optional and only adds to what the host does.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-2
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3
 */
export interface ResourceServerHooks {
  /** Fields added to the protected resource metadata document (RFC 9728). */
  readonly metadata?: MetadataContribution<ResourceMetadataContext>;
  /** Extra parameters of the `WWW-Authenticate: Bearer` challenge on 401 and 403. */
  readonly challengeParameters?: ChallengeParametersContribution;
  /** Sender-constrained tokens (RFC 9449 DPoP); at most one extension of a composition provides it. */
  readonly proofOfPossession?: ResourceServerProofOfPossession;
}
