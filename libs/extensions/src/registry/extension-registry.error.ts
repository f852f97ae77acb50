/**
 * Why the registry refused a set of extensions or a contribution. Codes are stable; messages are for people.
 *
 * - `invalid_id`: an id (of an extension or in its `requires`) is not `{reverse-dns}/{name}`.
 * - `invalid_version`: a version is not Semantic Versioning 2.0.0.
 * - `invalid_contribution`: a hook has the wrong shape (not a function, a malformed name, a non-JSON value).
 * - `duplicate_id`: two extensions have one id.
 * - `missing_requirement`: an extension requires an id that is not composed.
 * - `requirement_cycle`: extensions require each other in a cycle.
 * - `grant_type_conflict`: two extensions claim one grant type, or one claims a grant type the host keeps.
 * - `metadata_conflict`: two extensions contribute one metadata field, or one contributes a field the host keeps.
 * - `challenge_parameter_conflict`: two extensions contribute one challenge parameter, or one the host keeps.
 * - `grant_strategy_conflict`: two extensions contribute one client grant strategy name.
 * - `reserved_claim`: an extension's token claims include a registered claim.
 * - `claim_conflict`: two extensions contribute one token claim.
 * - `proof_of_possession_conflict`: two extensions provide proof of possession on one side.
 * - `invalid_module`: a module named to the host does not default-export an extension or a factory of one, or its
 *   factory failed.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export type ExtensionRegistryErrorCode =
  | 'invalid_id'
  | 'invalid_version'
  | 'invalid_contribution'
  | 'duplicate_id'
  | 'missing_requirement'
  | 'requirement_cycle'
  | 'grant_type_conflict'
  | 'metadata_conflict'
  | 'challenge_parameter_conflict'
  | 'grant_strategy_conflict'
  | 'reserved_claim'
  | 'claim_conflict'
  | 'proof_of_possession_conflict'
  | 'invalid_module';

/**
 * Thrown when extensions cannot be composed, or when a per-call contribution (dynamic metadata, token claims,
 * challenge parameters) breaks the contract. Either is a configuration defect of the host: it is not an OAuth
 * error and should surface as a failed boot or a `server_error`, never as a client-facing error code.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export class ExtensionRegistryError extends Error {
  override readonly name = 'ExtensionRegistryError';

  /**
   * @param code Stable reason, for programs and tests.
   * @param message Reason for people, naming the extensions and the item involved.
   * @param extensionIds The extensions involved, in the registry's order (empty when the id itself is unusable).
   * @param subject The item in dispute: a field, claim, parameter, grant type or required id.
   */
  constructor(
    readonly code: ExtensionRegistryErrorCode,
    message: string,
    readonly extensionIds: readonly string[] = [],
    readonly subject?: string,
  ) {
    super(message);
  }
}
