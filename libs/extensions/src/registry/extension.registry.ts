import { isPlainObject } from '../checks/json-value.check.js';
import type {
  AuthorizationServerMetadataContext,
  GrantHandler,
  GrantSelectionRequest,
} from '../contracts/authorization-server.hooks.js';
import type {
  AuthorizationRequest,
  AuthorizationRequestCheck,
  AuthorizationRequestContext,
  ExtensionAttachments,
} from '../contracts/authorization-request.hooks.js';
import type { ClientGrantStrategy } from '../contracts/client.hooks.js';
import type {
  AuthorizationServerProofOfPossession,
  ClientProofOfPossession,
  ResourceServerProofOfPossession,
} from '../contracts/proof-of-possession.hooks.js';
import type { Extension, ExtensionSummary } from '../contracts/extension.contract.js';
import type { JsonObject, JsonValue } from '../contracts/json.types.js';
import type { TokenClaimsHook, TokenClaimsRequest } from '../contracts/token-claims.hooks.js';
import type { ChallengeContext, ResourceMetadataContext } from '../contracts/resource-server.hooks.js';
import { mergeContributions, type NamedContribution } from './contribution.merge.js';
import {
  addSource,
  AS_METADATA,
  assertJsonFields,
  build,
  CHALLENGE_PARAMETERS,
  failFor,
  RESOURCE_METADATA,
  staticOnly,
  TOKEN_CLAIMS,
  type Source,
} from './contribution.sources.js';
import { cloneJson } from './json.clone.js';
import { assertChallengeParameter } from './extension-shape.check.js';
import { checkIds, checkRequirements } from './composition.check.js';
import { claimGrantType, registeredGrant, type RegisteredGrant } from './grant-registration.js';
import { orderByRequirements } from './requirement.order.js';
import { claimName, claimProof, type Owned } from './single-owner.claim.js';

export type { RegisteredGrant } from './grant-registration.js';

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
  /** The extensions as given, in the registry's order, for {@link ExtensionRegistry.with}. */
  readonly #composed: readonly Extension[];
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
    this.#composed = Object.freeze(ordered.map(({ extension }) => extension));
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
   * A new registry of this one's extensions and `more` (extensions, or another registry's), composed under the same
   * checks: how a host adds what its embedding code passes to what its configuration names. This registry is
   * unchanged.
   *
   * @throws ExtensionRegistryError when the union cannot be composed (two with one id, a conflict, ...).
   * @see https://modelcontextprotocol.io/extensions/overview
   */
  with(more: ExtensionRegistry | Iterable<Extension>): ExtensionRegistry {
    const added = more instanceof ExtensionRegistry ? more.#composed : Array.from(more);
    return new ExtensionRegistry([...this.#composed, ...added]);
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
   * threw is rethrown unchanged for the host to map. Returns what the checks attached, by extension id, for the
   * host to keep with the authorization and give back to `tokenClaims`.
   *
   * @throws ExtensionRegistryError `invalid_contribution` when a check returns something other than nothing or a
   *   plain object of JSON values.
   * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1
   */
  async runAuthorizationRequestChecks(
    request: AuthorizationRequest,
    context: AuthorizationRequestContext,
  ): Promise<ExtensionAttachments> {
    const attachments: Record<string, JsonObject> = {};
    for (const { extensionId, name, check } of this.#checks) {
      const attached: unknown = await check(request, context);
      if (attached === undefined) continue;
      assertJsonFields(
        attached,
        failFor(extensionId, `authorizationServer.authorizationRequestChecks ${name}`),
      );
      attachments[extensionId] = mergeInto(attachments[extensionId] ?? {}, attached);
    }
    return cloneJson(attachments);
  }

  /**
   * The extra claims of one access token, every extension's merged, as a new object. Each hook gets the shared
   * context and its own extension's attachments (a copy). Checked on every call: a registered claim is refused
   * (`reserved_claim`), and so is a claim two extensions set (`claim_conflict`).
   *
   * @throws ExtensionRegistryError `reserved_claim`, `claim_conflict` or `invalid_contribution`.
   * @see https://www.rfc-editor.org/rfc/rfc9068#section-2.2
   */
  async tokenClaims(request: TokenClaimsRequest): Promise<Record<string, JsonValue>> {
    const { attachments = {}, ...shared } = request;
    const contributions: NamedContribution<JsonValue>[] = [];
    for (const { extensionId, hook } of this.#tokenClaims) {
      const own = Object.hasOwn(attachments, extensionId) ? attachments[extensionId] : undefined;
      const claims: unknown = await hook({ ...shared, attachments: own ? cloneJson(own) : {} });
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

/** Adds `fields` to `target` as own data properties (a member named `__proto__` stays a member), replacing any. */
function mergeInto(target: JsonObject, fields: JsonObject): JsonObject {
  for (const [name, value] of Object.entries(fields)) {
    Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return target;
}
