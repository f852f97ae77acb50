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
  GrantHandler,
  MetadataContribution,
  TokenClaimsContext,
  TokenClaimsHook,
} from '../contracts/authorization-server.hooks.js';
import type { ClientGrantStrategy } from '../contracts/client.hooks.js';
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
  readonly #grantHandlers = new Map<string, GrantHandler>();
  readonly #selfRegistrableGrantTypes = new Set<string>();
  readonly #checks: RegisteredAuthorizationRequestCheck[] = [];
  readonly #strategies: RegisteredClientGrantStrategy[] = [];
  readonly #tokenClaims: { readonly extensionId: string; readonly hook: TokenClaimsHook }[] = [];
  readonly #asMetadata: Source<AuthorizationServerMetadataContext, JsonValue>[] = [];
  readonly #resourceMetadata: Source<ResourceMetadataContext, JsonValue>[] = [];
  readonly #challengeParameters: Source<ChallengeContext, string>[] = [];

  /**
   * @throws ExtensionRegistryError when the extensions cannot be composed (see `ExtensionRegistryErrorCode`).
   * @see https://modelcontextprotocol.io/extensions/overview
   */
  constructor(extensions: Iterable<Extension>) {
    const ordered = orderByRequirements(checkRequirements(checkIds(Array.from(extensions))));
    this.#extensions = Object.freeze(ordered.map(({ id, version }) => Object.freeze({ id, version })));
    const grantOwners = new Map<string, string>();
    const strategyOwners = new Map<string, string>();
    for (const { id, extension } of ordered) {
      const as = extension.authorizationServer;
      for (const [grantType, handler] of Object.entries(as?.grantTypes ?? {})) {
        claimName(grantOwners, grantType, id, 'grant_type_conflict', 'grant type', RESERVED_GRANT_TYPES);
        this.#grantHandlers.set(grantType, handler);
      }
      for (const grantType of as?.selfRegistrableGrantTypes ?? [])
        this.#selfRegistrableGrantTypes.add(grantType);
      for (const { name, check } of as?.authorizationRequestChecks ?? []) {
        this.#checks.push(Object.freeze({ extensionId: id, name, check }));
      }
      if (as?.tokenClaims) this.#tokenClaims.push({ extensionId: id, hook: as.tokenClaims });
      for (const [name, strategy] of Object.entries(extension.client?.grantStrategies ?? {})) {
        claimName(strategyOwners, name, id, 'grant_strategy_conflict', 'client grant strategy');
        this.#strategies.push(Object.freeze({ extensionId: id, name, strategy }));
      }
      addSource(this.#asMetadata, id, as?.metadata);
      addSource(this.#resourceMetadata, id, extension.resourceServer?.metadata);
      addSource(this.#challengeParameters, id, extension.resourceServer?.challengeParameters);
    }
    mergeContributions(AS_METADATA, staticOnly(this.#asMetadata));
    mergeContributions(RESOURCE_METADATA, staticOnly(this.#resourceMetadata));
    mergeContributions(CHALLENGE_PARAMETERS, staticOnly(this.#challengeParameters));
    Object.freeze(this.#checks);
    Object.freeze(this.#strategies);
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
    return [...this.#grantHandlers.keys()];
  }

  /**
   * The grant types extensions handle that only clients the operator registers may use: every one of
   * `grantTypes()` that its extension does not list in `selfRegistrableGrantTypes`. The host refuses them in
   * dynamic registration (RFC 7591 section 2) and in client ID metadata documents.
   *
   * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
   */
  operatorGrantTypes(): readonly string[] {
    return this.grantTypes().filter((grantType) => !this.#selfRegistrableGrantTypes.has(grantType));
  }

  /**
   * The handler of a grant type, or `undefined` when no extension handles it (the host then answers
   * `unsupported_grant_type`, RFC 6749 section 5.2).
   *
   * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
   */
  grantHandler(grantType: string): GrantHandler | undefined {
    return this.#grantHandlers.get(grantType);
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
