// Rule: a contribution given as a fixed record is checked once, when the registry is composed; one given as a
// function is checked by the same rules every time its document is built (RFC 8414 2 and RFC 9728 2 for metadata
// members, RFC 6750 3 for challenge parameters, RFC 9068 2.2 for token claims). Whatever the registry returns is a
// copy, so a caller cannot change an extension's snapshot through it.

import { RESERVED_CHALLENGE_PARAMETERS } from '../checks/challenge-parameter.check.js';
import { isJsonValue, isPlainObject } from '../checks/json-value.check.js';
import {
  RESERVED_AUTHORIZATION_SERVER_METADATA,
  RESERVED_RESOURCE_METADATA,
} from '../checks/metadata-field.check.js';
import { RESERVED_TOKEN_CLAIMS } from '../checks/token-claim.check.js';
import type { MetadataContribution } from '../contracts/authorization-server.hooks.js';
import type { JsonObject, JsonValue } from '../contracts/json.types.js';
import type { ChallengeParametersContribution } from '../contracts/resource-server.hooks.js';
import { mergeContributions, type MergeRule, type NamedContribution } from './contribution.merge.js';
import { ExtensionRegistryError } from './extension-registry.error.js';
import type { Fail } from './extension-shape.check.js';
import { cloneJson } from './json.clone.js';

/**
 * One extension's contribution to a document: fixed (already copied and frozen) or computed per context.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export interface Source<C, V> {
  readonly extensionId: string;
  readonly contribution: Readonly<Record<string, V>> | ((context: C) => Readonly<Record<string, V>>);
}

/** @see https://www.rfc-editor.org/rfc/rfc8414#section-2 */
export const AS_METADATA: MergeRule = {
  what: 'authorization server metadata field',
  reserved: RESERVED_AUTHORIZATION_SERVER_METADATA,
  reservedCode: 'metadata_conflict',
  conflictCode: 'metadata_conflict',
};

/** @see https://www.rfc-editor.org/rfc/rfc9728#section-2 */
export const RESOURCE_METADATA: MergeRule = {
  what: 'protected resource metadata field',
  reserved: RESERVED_RESOURCE_METADATA,
  reservedCode: 'metadata_conflict',
  conflictCode: 'metadata_conflict',
};

/** @see https://www.rfc-editor.org/rfc/rfc9110#section-11.2 */
export const CHALLENGE_PARAMETERS: MergeRule = {
  what: 'challenge parameter',
  reserved: RESERVED_CHALLENGE_PARAMETERS,
  reservedCode: 'challenge_parameter_conflict',
  conflictCode: 'challenge_parameter_conflict',
  normalise: (name) => name.toLowerCase(),
};

/** @see https://www.rfc-editor.org/rfc/rfc9068#section-2.2 */
export const TOKEN_CLAIMS: MergeRule = {
  what: 'token claim',
  reserved: RESERVED_TOKEN_CLAIMS,
  reservedCode: 'reserved_claim',
  conflictCode: 'claim_conflict',
};

/** Adds an extension's contribution, if it has one; a fixed record is copied and frozen now. */
export function addSource<C, V>(
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

/** The fixed contributions, for the checks composition can make. */
export function* staticOnly<C, V>(sources: readonly Source<C, V>[]): Generator<NamedContribution<V>> {
  for (const { extensionId, contribution } of sources) {
    if (typeof contribution !== 'function') yield { extensionId, fields: contribution };
  }
}

/**
 * Builds one document's contributions for a context: each function's result checked with `assertFields`, then
 * every contribution merged by `rule`, as a new object.
 *
 * @throws ExtensionRegistryError `invalid_contribution`, or the rule's codes.
 */
export function build<C, V extends JsonValue>(
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

/**
 * Throws unless `fields` is a plain object of JSON values.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8259#section-4
 */
export function assertJsonFields(fields: unknown, fail: Fail): asserts fields is JsonObject {
  if (!isPlainObject(fields) || !isJsonValue(fields)) throw fail('not a plain object of JSON values.');
}

/** How an extension's per-call result that breaks the contract is reported: `invalid_contribution`, naming it. */
export function failFor(extensionId: string, where: string): Fail {
  return (message, subject) =>
    new ExtensionRegistryError(
      'invalid_contribution',
      `Extension ${extensionId}: ${where} returned an invalid value: ${message}`,
      [extensionId],
      subject,
    );
}
