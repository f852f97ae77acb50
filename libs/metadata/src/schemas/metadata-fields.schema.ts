/*
 * Field types shared by several documents:
 * - scope tokens and scope strings, RFC 6749 3.3 (`scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`, separated by
 *   single spaces);
 * - JWS algorithm lists where "The value `none` MUST NOT be used" (RFC 8414 2, RFC 9728 2, OIDC Discovery 3).
 */
import { z } from 'zod';

const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+(?: [\x21\x23-\x5B\x5D-\x7E]+)*$/;

/**
 * One scope value.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.3
 */
export const ScopeTokenSchema = z
  .string()
  .regex(SCOPE_TOKEN, 'scope token must be 1*( %x21 / %x23-5B / %x5D-7E )');

/**
 * A `scope` parameter: scope tokens separated by single spaces.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.3
 */
export const ScopeStringSchema = z
  .string()
  .regex(SCOPE, 'scope must be scope tokens separated by single spaces (RFC 6749 3.3)');

/**
 * A list of plain string values (grant types, response types, methods, locales).
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
 */
export const StringListSchema = z.array(z.string());

/**
 * A list of JWS `alg` values for signatures that authenticate something, where `none` is forbidden.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-2
 */
export const SigningAlgorithmListSchema = z
  .array(z.string().min(1))
  .refine((algorithms) => !algorithms.includes('none'), 'the value "none" MUST NOT be used');
