// Rules kept: RFC 7591 3.1 (the registration request is a JSON object of client metadata members) and 3.2.2
// (anything else is `invalid_client_metadata`). No member anywhere in the document may be named `__proto__`,
// `constructor` or `prototype`: such a name can replace the prototype of the object it is copied into
// (prototype pollution), and no client metadata member is called that. The platform's JSON parser already refuses
// `__proto__`; this check keeps the rule true whatever parser produced the body.
import { OAuthError } from '@portcullis/protocol';
import type { RegistrationCheck } from '../registration-check.js';

const FORBIDDEN_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
/** Deeper than any client metadata (a JWK Set inside `jwks` is three levels). */
const MAX_DEPTH = 16;
const TOO_DEEP = Symbol('too deep');

/**
 * The body is a JSON object, and no member at any depth has a name that could reach a prototype.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.1
 */
export const jsonObjectCheck: RegistrationCheck = {
  name: 'json-object',
  run({ body }) {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new OAuthError('invalid_client_metadata', 'the registration request must be a JSON object');
    }
    const forbidden = findForbiddenName(body, 0);
    if (forbidden === TOO_DEEP) {
      throw new OAuthError('invalid_client_metadata', 'the registration request is nested too deeply');
    }
    if (forbidden !== undefined) {
      throw new OAuthError('invalid_client_metadata', `member name not allowed: ${forbidden}`);
    }
  },
};

function findForbiddenName(value: unknown, depth: number): string | typeof TOO_DEEP | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth > MAX_DEPTH) return TOO_DEEP;
  // Own keys only, including a literal `__proto__` key JSON.parse creates as an own property.
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key !== 'string') continue;
    if (FORBIDDEN_NAMES.has(key)) return key;
    const found = findForbiddenName((value as Record<string, unknown>)[key], depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}
