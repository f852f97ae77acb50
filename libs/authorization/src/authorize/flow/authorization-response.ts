/**
 * The URL an authorization response is sent to: the validated redirect URI with the response parameters added
 * to its query, keeping any query it was registered with (RFC 6749 3.1.2), and always `iss` (RFC 9207 2), on
 * success and on error alike.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-2
 */
export function authorizationResponseUrl(
  redirectUri: string,
  issuer: string,
  parameters: Record<string, string | undefined>,
): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) query.set(name, value);
  query.set('iss', issuer);
  return `${redirectUri}${redirectUri.includes('?') ? '&' : '?'}${query.toString()}`;
}
