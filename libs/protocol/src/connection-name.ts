/**
 * The name of a proxy connection (`upstream`, or one of `CONNECTIONS`): the audience a resource server names in an
 * RFC 8693 token exchange for the user's tokens at that provider, and a segment of the proxy's paths
 * (`/connections/<name>/connect`). Lowercase letters, digits and `-`, a letter first, at most 40 characters: the same
 * name in an environment variable, an admin command's option and a URL, with nothing to escape.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2.1
 */
export const CONNECTION_NAME = /^[a-z][a-z0-9-]{0,39}$/;

/** Whether `value` is a connection name ({@link CONNECTION_NAME}). */
export function isConnectionName(value: string): boolean {
  return CONNECTION_NAME.test(value);
}
