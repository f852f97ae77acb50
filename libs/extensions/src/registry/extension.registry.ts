import { RESERVED_CHALLENGE_PARAMETERS } from '../checks/challenge-parameter.check.js';
import { RESERVED_GRANT_TYPES } from '../checks/grant-type.check.js';
import { isJsonValue, isPlainObject } from '../checks/json-value.check.js';
import {
  RESERVED_AUTHORIZATION_SERVER_METADATA,
  RESERVED_RESOURCE_METADATA,
} from '../checks/metadata-field.check.js';
import { RESERVED_TOKEN_CLAIMS } from '../checks/token-claim.check.js';
import type {
  AuthorizationRequest,
  AuthorizationRequestCheck,
  AuthorizationRequestContext,
  AuthorizationServerMetadataContext,
  ClientEstablishingGrantHandler,
  GrantHandler,
  GrantRegistration,
  GrantSelectionRequest,
  MetadataContribution,
  TokenClaimsContext,
  TokenClaimsHook,
} from '../contracts/authorization-server.hooks.js';
import type { ClientGrantStrategy } from '../contracts/client.hooks.js';
import type {
  AuthorizationServerProofOfPossession,
  ClientProofOfPossession,
  ResourceServerProofOfPossession,
} from '../contracts/proof-of-possession.hooks.js';
import type { Extension, ExtensionSummary } from '../contracts/extension.contract.js';
import type { JsonObject, JsonValue } from '../contracts/json.types.js';
import type {
  ChallengeContext,
  ChallengeParametersContribution,
  ResourceMetadataContext,
} from '../contracts/resource-server.hooks.js';
import { mergeContributions, type MergeRule, type NamedContribution } from './contribution.merge.js';
import { ExtensionRegistryError } from './extension-registry.error.js';
import { cloneJson } from './json.clone.js';
import { assertChallengeParameter, type Fail } from './extension-shape.check.js';
import { checkIds, checkRequirements } from './composition.check.js';
import { orderByRequirements } from './requirement.order.js';

/**
 * An authorization request check in the composed list, with the extension it comes from.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1
 */
export interface RegisteredAuthorizationRequestCheck {
  readonly extensionId: string;
  readonly name: string;
  readonly check: AuthorizationRequestCheck;
}

/**
 * A client grant strategy in the composed list, with the extension it comes from.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export interface RegisteredClientGrantStrategy {
  readonly extensionId: string;
  readonly name: string;
  readonly strategy: ClientGrantStrategy;
}

interface RegisteredGrantBase {
  readonly extensionId: string;
  readonly grantType: string;
  /** Whether the registration has `accepts`, so that other extensions may register the grant type too. */
  readonly shared: boolean;
  /** The registration's `accepts`; one that takes every request when it has none. */
  readonly accepts: (request: GrantSelectionRequest) => boolean;
}

/**
 * One extension's registration of a grant type, as the host dispatches to it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export type RegisteredGrant = RegisteredGrantBase &
  (
    | { readonly establishesClient: false; readonly handle: GrantHandler }
    | { readonly establishesClient: true; readonly handle: ClientEstablishingGrantHandler }
  );

interface Source<C, V> {
  readonly extensionId: string;
  readonly contribution: Readonly<Record<string, V>> | ((context: C) => Readonly<Record<string, V>>);
}

const AS_METADATA: MergeRule = {
  what: 'authorization server metadata field',
  reserved: RESERVED_AUTHORIZATION_SERVER_METADATA,
  reservedCode: 'metadata_conflict',
  conflictCode: 'metadata_conflict',
};
const RESOURCE_METADATA: MergeRule = {
  what: 'protected resource metadata field',
  reserved: RESERVED_RESOURCE_METADATA,
  reservedCode: 'metadata_conflict',
  conflictCode: 'metadata_conflict',
};
const CHALLENGE_PARAMETERS: MergeRule = {
  what: 'challenge parameter',
  reserved: RESERVED_CHALLENGE_PARAMETERS,
  reservedCode: 'challenge_parameter_conflict',
  conflictCode: 'challenge_parameter_conflict',
  normalise: (name) => name.toLowerCase(),
};
const TOKEN_CLAIMS: MergeRule = {
  what: 'token claim',
  reserved: RESERVED_TOKEN_CLAIMS,
  reservedCode: 'reserved_claim',
  conflictCode: 'claim_conflict',
};

/**
 * Composes extensions and answers for all of them at once. Composition checks everything that can be known
 * before a request: ids, versions, requirements, the shape of every hook, and the ownership of every grant type,
 * strategy name and fixed metadata field or challenge parameter. What extensions compute per call (dynamic
 * metadata, challenge parameters, token claims) is checked by the same rules each time it is built.
 *
 * Every view lists contributions in one stable order: each extension after the ones it requires, otherwise by
 * id (UTF-16 code units), whatever order the extensions were given in. The registry snapshots the extensions
 * when it is built; changing an extension object afterwards changes nothing.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export class ExtensionRegistry {
  readonly #extensions: readonly ExtensionSummary[];
  readonly #grants = new Map<string, RegisteredGrant[]>();
  readonly #notSelfRegistrable = new Set<string>();
  readonly #checks: RegisteredAuthorizationRequestCheck[] = [];
  readonly #strategies: RegisteredClientGrantStrategy[] = [];
  readonly #tokenClaims: { readonly extensionId: string; readonly hook: TokenClaimsHook }[] = [];
  readonly #asMetadata: Source<AuthorizationServerMetadataContext, JsonValue>[] = [];
  readonly #resourceMetadata: Source<ResourceMetadataContext, JsonValue>[] = [];
  readonly #challengeParameters: Source<ChallengeContext, string>[] = [];
  #asProof: Owned<AuthorizationServerProofOfPossession> | undefined;
  #resourceProof: Owned<ResourceServerProofOfPossession> | undefined;
  #clientProof: Owned<ClientProofOfPossession> | undefined;

  /**
   * @throws ExtensionRegistryError when the extensions cannot be composed (see `ExtensionRegistryErrorCode`).
   * @see https://modelcontextprotocol.io/extensions/overview
   */
  constructor(extensions: Iterable<Extension>) {
    const ordered = orderByRequirements(checkRequirements(checkIds(Array.from(extensions))));
    this.#extensions = Object.freeze(ordered.map(({ id, version }) => Object.freeze({ id, version })));
    const strategyOwners = new Map<string, string>();
    for (const { id, extension } of ordered) {
      const as = extension.authorizationServer;
      for (const [grantType, contribution] of Object.entries(as?.grantTypes ?? {})) {
        const registration = registeredGrant(id, grantType, contribution);
        claimGrantType(this.#grants, registration);
        // Shared: self-registrable only when every extension sharing it says so (fail closed).
        if (!(as?.selfRegistrableGrantTypes ?? []).includes(grantType))
          this.#notSelfRegistrable.add(grantType);
      }
      for (const { name, check } of as?.authorizationRequestChecks ?? []) {
        this.#checks.push(Object.freeze({ extensionId: id, name, check }));
      }
      if (as?.tokenClaims) this.#tokenClaims.push({ extensionId: id, hook: as.tokenClaims });
      for (const [name, strategy] of Object.entries(extension.client?.grantStrategies ?? {})) {
        claimName(strategyOwners, name, id, 'grant_strategy_conflict', 'client grant strategy');
        this.#strategies.push(Object.freeze({ extensionId: id, name, strategy }));
      }
      this.#asProof = claimProof(this.#asProof, id, as?.proofOfPossession, 'authorizationServer');
      this.#resourceProof = claimProof(
        this.#resourceProof,
        id,
        extension.resourceServer?.proofOfPossession,
        'resourceServer',
      );
      this.#clientProof = claimProof(this.#clientProof, id, extension.client?.proofOfPossession, 'client');
      addSource(this.#asMetadata, id, as?.metadata);
      addSource(this.#resourceMetadata, id, extension.resourceServer?.metadata);
      addSource(this.#challengeParameters, id, extension.resourceServer?.challengeParameters);
    }
    mergeContributions(AS_METADATA, staticOnly(this.#asMetadata));
    mergeContributions(RESOURCE_METADATA, staticOnly(this.#resourceMetadata));
    mergeContributions(CHALLENGE_PARAMETERS, staticOnly(this.#challengeParameters));
    Object.freeze(this.#checks);
    Object.freeze(this.#strategies);
    for (const registrations of this.#grants.values()) Object.freeze(registrations);
  }

  /**
   * Same as `new ExtensionRegistry(extensions)`.
   *
   * @throws ExtensionRegistryError when the extensions cannot be composed.
   * @see https://modelcontextprotocol.io/extensions/overview
   */
  static compose(extensions: Iterable<Extension>): ExtensionRegistry {
    return new ExtensionRegistry(extensions);
  }

  /**
   * The composed extensions' ids and versions, in the registry's order.
   *
   * @see https://modelcontextprotocol.io/extensions/overview
   */
  list(): readonly ExtensionSummary[] {
    return this.#extensions;
  }

  /**
   * Whether an extension with this id is composed.
   *
   * @see https://modelcontextprotocol.io/extensions/overview
   */
  has(id: string): boolean {
    return this.#extensions.some((extension) => extension.id === id);
  }

  /**
   * The fields extensions add to the authorization server metadata document, as a new object. The host merges
   * them with its own document and adds `grantTypes()` to its `grant_types_supported`.
   *
   * @throws ExtensionRegistryError `metadata_conflict` or `invalid_contribution` when a function's result breaks
   *   the contract.
   * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
   */
  authorizationServerMetadata(context: AuthorizationServerMetadataContext): Record<string, JsonValue> {
    return build(AS_METADATA, this.#asMetadata, context, 'authorizationServer.metadata', assertJsonFields);
  }

  /**
   * The grant types extensions handle, in the registry's order, for the host's `grant_types_supported`.
   *
   * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
   */
  grantTypes(): readonly string[] {
    return [...this.#grants.keys()];
  }

  /**
   * The grant types extensions handle that only clients the operator registers may use: every one of
   * `grantTypes()` that its extension (for a shared grant type: any extension registering it) does not list in
   * `selfRegistrableGrantTypes`. The host refuses them in dynamic registration (RFC 7591 section 2) and in client ID
   * metadata documents.
   *
   * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
   */
  operatorGrantTypes(): readonly string[] {
    return this.grantTypes().filter((grantType) => this.#notSelfRegistrable.has(grantType));
  }

  /**
   * The handler of a grant type one extension registers as a bare handler or without `accepts` and
   * `establishesClient`, or `undefined` when no extension handles it (the host then answers
   * `unsupported_grant_type`, RFC 6749 section 5.2) or it needs `selectGrant` (shared, or establishing its client).
   *
   * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
   */
  grantHandler(grantType: string): GrantHandler | undefined {
    const [registration, ...others] = this.#grants.get(grantType) ?? [];
    if (registration === undefined || others.length > 0 || registration.shared) return undefined;
    return registration.establishesClient ? undefined : registration.handle;
  }

  /**
   * Every registration of a grant type, in the registry's order: one, or several that share it.
   *
   * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
   */
  grantRegistrations(grantType: string): readonly RegisteredGrant[] {
    return this.#grants.get(grantType) ?? [];
  }

  /**
   * The registration that takes a token request: the first of its grant type's registrations (registry order)
   * whose `accepts` returns true, or `undefined` when the grant type has none or none accepts the request (the
   * host then answers `unsupported_grant_type` or `invalid_grant`). `accepts` is the extension's code: what it
   * throws is rethrown unchanged, for the host to map to `server_error`.
   *
   * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
   */
  selectGrant(request: GrantSelectionRequest): RegisteredGrant | undefined {
    return this.#grants.get(request.grantType)?.find((registration) => registration.accepts(request));
  }

  /**
   * Every extension's authorization request checks, in the registry's order and, within one extension, in its
   * own order.
   *
   * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1
   */
  authorizationRequestChecks(): readonly RegisteredAuthorizationRequestCheck[] {
    return this.#checks;
  }

  /**
   * Runs `authorizationRequestChecks()` one after the other; the first that throws stops the run, and what it
   * threw is rethrown unchanged for the host to map.
   *
   * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1
   */
  async runAuthorizationRequestChecks(
    request: AuthorizationRequest,
    context: AuthorizationRequestContext,
  ): Promise<void> {
    for (const { check } of this.#checks) await check(request, context);
  }

  /**
   * The extra claims of one access token, every extension's merged, as a new object. Checked on every call: a
   * registered claim is refused (`reserved_claim`), and so is a claim two extensions set (`claim_conflict`).
   *
   * @throws ExtensionRegistryError `reserved_claim`, `claim_conflict` or `invalid_contribution`.
   * @see https://www.rfc-editor.org/rfc/rfc9068#section-2.2
   */
  async tokenClaims(context: TokenClaimsContext): Promise<Record<string, JsonValue>> {
    const contributions: NamedContribution<JsonValue>[] = [];
    for (const { extensionId, hook } of this.#tokenClaims) {
      const claims: unknown = await hook(context);
      assertJsonFields(claims, failFor(extensionId, 'authorizationServer.tokenClaims'));
      contributions.push({ extensionId, fields: claims });
    }
    return cloneJson(mergeContributions(TOKEN_CLAIMS, contributions));
  }

  /**
   * The fields extensions add to the protected resource metadata document, as a new object.
   *
   * @throws ExtensionRegistryError `metadata_conflict` or `invalid_contribution` when a function's result breaks
   *   the contract.
   * @see https://www.rfc-editor.org/rfc/rfc9728#section-2
   */
  resourceMetadata(context: ResourceMetadataContext): Record<string, JsonValue> {
    return build(
      RESOURCE_METADATA,
      this.#resourceMetadata,
      context,
      'resourceServer.metadata',
      assertJsonFields,
    );
  }

  /**
   * The extra parameters of a `Bearer` challenge, as a new object, for the host to add to its own.
   *
   * @throws ExtensionRegistryError `challenge_parameter_conflict` or `invalid_contribution` when a function's
   *   result breaks the contract.
   * @see https://www.rfc-editor.org/rfc/rfc6750#section-3
   */
  challengeParameters(context: ChallengeContext): Record<string, string> {
    return build(
      CHALLENGE_PARAMETERS,
      this.#challengeParameters,
      context,
      'resourceServer.challengeParameters',
      (fields, fail) => {
        if (!isPlainObject(fields)) throw fail('not a plain object.');
        for (const [name, value] of Object.entries(fields)) assertChallengeParameter(name, value, fail);
      },
    );
  }

  /**
   * Every extension's client grant strategies, in the registry's order.
   *
   * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
   */
  clientGrantStrategies(): readonly RegisteredClientGrantStrategy[] {
    return this.#strategies;
  }

  /**
   * The authorization server side of the composed proof-of-possession extension (DPoP), if one is composed.
   *
   * @see https://www.rfc-editor.org/rfc/rfc9449#section-5
   */
  authorizationServerProofOfPossession(): AuthorizationServerProofOfPossession | undefined {
    return this.#asProof?.hooks;
  }

  /**
   * The resource server side of the composed proof-of-possession extension (DPoP), if one is composed.
   *
   * @see https://www.rfc-editor.org/rfc/rfc9449#section-7
   */
  resourceServerProofOfPossession(): ResourceServerProofOfPossession | undefined {
    return this.#resourceProof?.hooks;
  }

  /**
   * The client side of the composed proof-of-possession extension (DPoP), if one is composed.
   *
   * @see https://www.rfc-editor.org/rfc/rfc9449#section-4
   */
  clientProofOfPossession(): ClientProofOfPossession | undefined {
    return this.#clientProof?.hooks;
  }
}

interface Owned<H> {
  readonly extensionId: string;
  readonly hooks: H;
}

/** One side's proof of possession: a request has one `Authorization` scheme, so one extension may provide it. */
function claimProof<H extends object>(
  current: Owned<H> | undefined,
  extensionId: string,
  hooks: H | undefined,
  side: string,
): Owned<H> | undefined {
  if (hooks === undefined) return current;
  if (current !== undefined) {
    throw new ExtensionRegistryError(
      'proof_of_possession_conflict',
      `Extensions ${current.extensionId} and ${extensionId} both provide proof of possession on the ${side} side.`,
      [current.extensionId, extensionId],
    );
  }
  return { extensionId, hooks };
}

function registeredGrant(
  extensionId: string,
  grantType: string,
  contribution: GrantHandler | GrantRegistration,
): RegisteredGrant {
  if (typeof contribution === 'function') {
    return Object.freeze({
      extensionId,
      grantType,
      shared: false,
      accepts: () => true,
      establishesClient: false,
      handle: contribution,
    });
  }
  const { accepts } = contribution;
  const base = {
    extensionId,
    grantType,
    shared: accepts !== undefined,
    accepts:
      accepts === undefined ? () => true : (request: GrantSelectionRequest) => accepts(request) === true,
  };
  return Object.freeze(
    contribution.establishesClient === true
      ? { ...base, establishesClient: true, handle: contribution.handle }
      : { ...base, establishesClient: false, handle: contribution.handle },
  );
}

/**
 * Adds a grant type registration: a grant type the host keeps is refused, and so is a second registration of one
 * grant type unless every registration of it is shared (has `accepts`).
 */
function claimGrantType(grants: Map<string, RegisteredGrant[]>, registration: RegisteredGrant): void {
  const { extensionId, grantType } = registration;
  if (RESERVED_GRANT_TYPES.has(grantType)) {
    throw new ExtensionRegistryError(
      'grant_type_conflict',
      `Extension ${extensionId} claims the grant type ${grantType}, which extensions may not handle.`,
      [extensionId],
      grantType,
    );
  }
  const registrations = grants.get(grantType);
  if (registrations === undefined) {
    grants.set(grantType, [registration]);
    return;
  }
  const unshared = [...registrations, registration].find((each) => !each.shared);
  if (unshared !== undefined) {
    const owner = (registrations[0] as RegisteredGrant).extensionId;
    throw new ExtensionRegistryError(
      'grant_type_conflict',
      `Extensions ${owner} and ${extensionId} both claim the grant type ${grantType}, and ${unshared.extensionId} does not share it (a grant type is shared only when every registration of it has accepts).`,
      [owner, extensionId],
      grantType,
    );
  }
  registrations.push(registration);
}

function claimName(
  owners: Map<string, string>,
  name: string,
  extensionId: string,
  code: 'grant_type_conflict' | 'grant_strategy_conflict',
  what: string,
  reserved: ReadonlySet<string> = new Set(),
): void {
  if (reserved.has(name)) {
    throw new ExtensionRegistryError(
      code,
      `Extension ${extensionId} claims the ${what} ${name}, which extensions may not handle.`,
      [extensionId],
      name,
    );
  }
  const owner = owners.get(name);
  if (owner !== undefined) {
    throw new ExtensionRegistryError(
      code,
      `Extensions ${owner} and ${extensionId} both claim the ${what} ${name}.`,
      [owner, extensionId],
      name,
    );
  }
  owners.set(name, extensionId);
}

function addSource<C, V>(
  sources: Source<C, V>[],
  extensionId: string,
  contribution: MetadataContribution<C> | ChallengeParametersContribution | undefined,
): void {
  if (contribution === undefined) return;
  sources.push({
    extensionId,
    contribution:
      typeof contribution === 'function'
        ? (contribution as (context: C) => Readonly<Record<string, V>>)
        : Object.freeze(cloneJson(contribution as JsonObject) as Record<string, V>),
  });
}

function* staticOnly<C, V>(sources: readonly Source<C, V>[]): Generator<NamedContribution<V>> {
  for (const { extensionId, contribution } of sources) {
    if (typeof contribution !== 'function') yield { extensionId, fields: contribution };
  }
}

function build<C, V extends JsonValue>(
  rule: MergeRule,
  sources: readonly Source<C, V>[],
  context: C,
  where: string,
  assertFields: (fields: unknown, fail: Fail) => asserts fields is Record<string, V>,
): Record<string, V> {
  const contributions = sources.map(({ extensionId, contribution }): NamedContribution<V> => {
    if (typeof contribution !== 'function') return { extensionId, fields: contribution };
    const fields: unknown = contribution(context);
    assertFields(fields, failFor(extensionId, where));
    return { extensionId, fields };
  });
  return cloneJson(mergeContributions(rule, contributions));
}

function assertJsonFields(fields: unknown, fail: Fail): asserts fields is JsonObject {
  if (!isPlainObject(fields) || !isJsonValue(fields)) throw fail('not a plain object of JSON values.');
}

function failFor(extensionId: string, where: string): Fail {
  return (message, subject) =>
    new ExtensionRegistryError(
      'invalid_contribution',
      `Extension ${extensionId}: ${where} returned an invalid value: ${message}`,
      [extensionId],
      subject,
    );
}
