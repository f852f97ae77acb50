// Rule: extension challenge parameters are well-formed and never replace the host's (RFC 6750 section 3,
// RFC 9728 section 5.1, RFC 9110 section 11.2).
// - `realm`, `scope`, `error`, `error_description`, `error_uri` (RFC 6750 section 3) and `resource_metadata`
//   (RFC 9728 section 5.1) are the host's: they drive the client's discovery and step-up.
// - A parameter name is an RFC 9110 token; the registry also refuses names that differ only by case, since
//   auth-param names are case-insensitive (RFC 9110 section 11.2).
// - A value is visible ASCII and spaces only: control characters are refused (CR and LF would split the header,
//   RFC 9110 section 5.5) and so is obs-text, which a sender should not generate; the host quotes and escapes it.

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const VISIBLE_ASCII_OR_SPACE = /^[\u0020-\u007e]*$/;

/**
 * Bearer challenge parameters an extension can never set (compared case-insensitively).
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-5.1
 */
export const RESERVED_CHALLENGE_PARAMETERS: ReadonlySet<string> = new Set([
  'realm',
  'scope',
  'error',
  'error_description',
  'error_uri',
  'resource_metadata',
]);

/**
 * Whether `name` is an RFC 9110 token, the syntax of an auth-param name.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-5.6.2
 */
export function isChallengeParameterName(name: string): boolean {
  return TOKEN.test(name);
}

/**
 * Whether `value` can be carried in a challenge parameter: visible ASCII characters and spaces only.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-5.5
 */
export function isChallengeParameterValue(value: unknown): value is string {
  return typeof value === 'string' && VISIBLE_ASCII_OR_SPACE.test(value);
}
