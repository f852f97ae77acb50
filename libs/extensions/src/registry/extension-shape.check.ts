// Rule: an extension has the shape of the `Extension` contract before anything of it is composed
// (MCP extensions overview; RFC 6749 section 4.5 for grant type names; RFC 8259 for contributed values).
// - `id` is a valid extension id, `version` a Semantic Versioning 2.0.0 string, `requires` a list of valid ids.
// - No member outside the contract, at the top or on a side: a misspelt hook (`authorisationServer`,
//   `grantType`) would otherwise be ignored without a word, and the extension would silently do nothing.
// - Every hook has its declared type (a grant type's handler is a function or `{ handle, accepts?,
//   establishesClient? }`); fixed metadata and challenge parameters are checked now, so that a mistake
//   stops the boot rather than the first request.
// Conflicts between extensions and with the host are the registry's concern, not this file's.

import { isChallengeParameterName, isChallengeParameterValue } from '../checks/challenge-parameter.check.js';
import { isExtensionId } from '../checks/extension-id.check.js';
import { isGrantTypeName } from '../checks/grant-type.check.js';
import { isJsonValue, isPlainObject } from '../checks/json-value.check.js';
import { isSemver } from '../checks/semver.check.js';
import type { Extension } from '../contracts/extension.contract.js';
import { ExtensionRegistryError } from './extension-registry.error.js';

const EXTENSION_MEMBERS = ['id', 'version', 'requires', 'authorizationServer', 'resourceServer', 'client'];
const AUTHORIZATION_SERVER_HOOKS = [
  'metadata',
  'grantTypes',
  'selfRegistrableGrantTypes',
  'authorizationRequestChecks',
  'tokenClaims',
  'proofOfPossession',
];
const RESOURCE_SERVER_HOOKS = ['metadata', 'challengeParameters', 'proofOfPossession'];
const CLIENT_HOOKS = ['grantStrategies', 'proofOfPossession'];
/** The functions each side's `proofOfPossession` must have, and its scheme (an RFC 9110 auth-scheme token). */
const PROOF_FUNCTIONS: Readonly<Record<string, readonly string[]>> = {
  authorizationServer: ['verifyTokenRequest', 'requiredFor'],
  resourceServer: ['binds', 'verifyRequest'],
  client: ['algorithmFor', 'generateKey', 'proof'],
};
const AUTH_SCHEME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Names of authorization request checks and client grant strategies. */
const HOOK_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Throws unless `value` has the shape of an `Extension`.
 *
 * @throws ExtensionRegistryError `invalid_id`, `invalid_version` or `invalid_contribution`.
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export function assertExtensionShape(value: unknown): asserts value is Extension {
  if (typeof value !== 'object' || value === null) {
    throw new ExtensionRegistryError(
      'invalid_contribution',
      `An extension must be an object, got ${typeOf(value)}.`,
    );
  }
  const extension = value as Record<string, unknown>;
  if (!isExtensionId(extension['id'])) {
    throw new ExtensionRegistryError(
      'invalid_id',
      `Extension id ${show(extension['id'])} is not {reverse-dns-prefix}/{name}, e.g. com.example/my-extension.`,
    );
  }
  const id = extension['id'];
  const fail = (message: string, subject?: string) =>
    new ExtensionRegistryError('invalid_contribution', `Extension ${id}: ${message}`, [id], subject);

  if (!isSemver(extension['version'])) {
    throw new ExtensionRegistryError(
      'invalid_version',
      `Extension ${id}: version ${show(extension['version'])} is not a Semantic Versioning 2.0.0 version.`,
      [id],
    );
  }
  assertOnly(extension, EXTENSION_MEMBERS, 'extension', fail);
  const requires = extension['requires'];
  if (requires !== undefined) {
    if (!Array.isArray(requires)) throw fail('requires must be an array of extension ids.');
    for (const required of requires as unknown[]) {
      if (!isExtensionId(required)) {
        throw new ExtensionRegistryError(
          'invalid_id',
          `Extension ${id}: required id ${show(required)} is not {reverse-dns-prefix}/{name}.`,
          [id],
          typeof required === 'string' ? required : undefined,
        );
      }
    }
  }
  const side = (name: string, hooks: readonly string[]) => {
    const value = extension[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'object' || value === null) throw fail(`${name} must be an object of hooks.`);
    assertOnly(value as Record<string, unknown>, hooks, name, fail);
    return value as Record<string, unknown>;
  };

  const authorizationServer = side('authorizationServer', AUTHORIZATION_SERVER_HOOKS);
  if (authorizationServer) {
    assertMetadata(authorizationServer['metadata'], 'authorizationServer.metadata', fail);
    assertRecordOf(
      authorizationServer['grantTypes'],
      'authorizationServer.grantTypes',
      fail,
      (name, handler) => {
        if (!isGrantTypeName(name))
          throw fail(`grant type ${show(name)} is neither a grant name nor an absolute URI.`, name);
        if (typeof handler !== 'function') assertGrantRegistration(name, handler, fail);
      },
    );
    const selfRegistrable = authorizationServer['selfRegistrableGrantTypes'];
    if (selfRegistrable !== undefined) {
      const handled = Object.keys((authorizationServer['grantTypes'] ?? {}) as object);
      if (!Array.isArray(selfRegistrable)) {
        throw fail('authorizationServer.selfRegistrableGrantTypes must be an array of grant types.');
      }
      for (const grantType of selfRegistrable as unknown[]) {
        if (typeof grantType !== 'string' || !handled.includes(grantType)) {
          throw fail(
            `selfRegistrableGrantTypes names ${show(grantType)}, which is not one of its grantTypes.`,
            typeof grantType === 'string' ? grantType : undefined,
          );
        }
      }
    }
    assertChecks(authorizationServer['authorizationRequestChecks'], fail);
    assertOptionalFunction(authorizationServer['tokenClaims'], 'authorizationServer.tokenClaims', fail);
    assertProof(authorizationServer['proofOfPossession'], 'authorizationServer', fail);
  }

  const resourceServer = side('resourceServer', RESOURCE_SERVER_HOOKS);
  if (resourceServer) {
    assertMetadata(resourceServer['metadata'], 'resourceServer.metadata', fail);
    const parameters = resourceServer['challengeParameters'];
    if (typeof parameters !== 'function') {
      assertRecordOf(parameters, 'resourceServer.challengeParameters', fail, (name, parameterValue) =>
        assertChallengeParameter(name, parameterValue, fail),
      );
    }
    assertProof(resourceServer['proofOfPossession'], 'resourceServer', fail);
  }

  const client = side('client', CLIENT_HOOKS);
  if (client) {
    assertRecordOf(client['grantStrategies'], 'client.grantStrategies', fail, (name, strategy) => {
      if (!HOOK_NAME.test(name)) throw fail(`grant strategy name ${show(name)} is malformed.`, name);
      const { grantType, obtainToken } = (strategy ?? {}) as Record<string, unknown>;
      if (typeof grantType !== 'string' || !isGrantTypeName(grantType)) {
        throw fail(`grant strategy ${name} has no valid grantType.`, name);
      }
      if (typeof obtainToken !== 'function')
        throw fail(`grant strategy ${name} has no obtainToken function.`, name);
    });
    assertProof(client['proofOfPossession'], 'client', fail);
  }
}

/** Throws unless a side's `proofOfPossession` has its scheme and functions. */
function assertProof(value: unknown, side: string, fail: Fail): void {
  if (value === undefined) return;
  const where = `${side}.proofOfPossession`;
  if (typeof value !== 'object' || value === null) throw fail(`${where} must be an object.`);
  const hooks = value as Record<string, unknown>;
  if (typeof hooks['scheme'] !== 'string' || !AUTH_SCHEME.test(hooks['scheme'])) {
    throw fail(`${where}.scheme must be an HTTP authentication scheme name.`);
  }
  for (const name of PROOF_FUNCTIONS[side] ?? []) {
    if (typeof hooks[name] !== 'function') throw fail(`${where}.${name} must be a function.`, name);
  }
}

/**
 * Throws unless `name` and `value` can be a parameter of a `Bearer` challenge.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-11.2
 */
export function assertChallengeParameter(name: string, value: unknown, fail: Fail): void {
  if (!isChallengeParameterName(name))
    throw fail(`challenge parameter name ${show(name)} is not a token.`, name);
  if (!isChallengeParameterValue(value)) {
    throw fail(`challenge parameter ${name} must be a string of visible ASCII characters and spaces.`, name);
  }
}

/**
 * Builds the error for a malformed contribution of one extension.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export type Fail = (message: string, subject?: string) => ExtensionRegistryError;

function assertOnly(
  value: Record<string, unknown>,
  allowed: readonly string[],
  where: string,
  fail: Fail,
): void {
  for (const member of Object.keys(value)) {
    if (!allowed.includes(member)) {
      throw fail(
        `unknown member ${show(member)} in ${where} (expected one of ${allowed.join(', ')}).`,
        member,
      );
    }
  }
}

function assertMetadata(value: unknown, where: string, fail: Fail): void {
  if (value === undefined || typeof value === 'function') return;
  if (!isPlainObject(value) || !isJsonValue(value)) {
    throw fail(`${where} must be a function or a plain object of JSON values.`);
  }
}

function assertRecordOf(
  value: unknown,
  where: string,
  fail: Fail,
  each: (name: string, member: unknown) => void,
): void {
  if (value === undefined) return;
  if (!isPlainObject(value)) throw fail(`${where} must be a plain object.`);
  for (const [name, member] of Object.entries(value)) each(name, member);
}

const GRANT_REGISTRATION_MEMBERS = ['handle', 'accepts', 'establishesClient'];

/** A grant type given as a registration: `{ handle, accepts?, establishesClient? }`, nothing else. */
function assertGrantRegistration(name: string, value: unknown, fail: Fail): void {
  if (!isPlainObject(value)) {
    throw fail(`the handler of grant type ${name} is neither a function nor a registration object.`, name);
  }
  assertOnly(value, GRANT_REGISTRATION_MEMBERS, `grant type ${name}`, fail);
  if (typeof value['handle'] !== 'function') {
    throw fail(`the handler of grant type ${name} is not a function.`, name);
  }
  if (value['accepts'] !== undefined && typeof value['accepts'] !== 'function') {
    throw fail(`accepts of grant type ${name} is not a function.`, name);
  }
  if (value['establishesClient'] !== undefined && typeof value['establishesClient'] !== 'boolean') {
    throw fail(`establishesClient of grant type ${name} is not a boolean.`, name);
  }
}

function assertChecks(value: unknown, fail: Fail): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) throw fail('authorizationServer.authorizationRequestChecks must be an array.');
  const names = new Set<string>();
  for (const entry of value as unknown[]) {
    const { name, check } = (entry ?? {}) as Record<string, unknown>;
    if (typeof name !== 'string' || !HOOK_NAME.test(name)) {
      throw fail(`authorization request check name ${show(name)} is malformed.`);
    }
    if (names.has(name)) throw fail(`two authorization request checks are named ${name}.`, name);
    if (typeof check !== 'function')
      throw fail(`authorization request check ${name} is not a function.`, name);
    names.add(name);
  }
}

function assertOptionalFunction(value: unknown, where: string, fail: Fail): void {
  if (value !== undefined && typeof value !== 'function') throw fail(`${where} must be a function.`);
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/**
 * Quotes a value for a message, without letting an arbitrary one make the message unreadable.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8259#section-7
 */
export function show(value: unknown): string {
  if (typeof value !== 'string') return typeOf(value);
  const shown = JSON.stringify(value);
  return shown.length > 80 ? `${shown.slice(0, 77)}..."` : shown;
}
