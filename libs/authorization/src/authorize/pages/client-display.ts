import { uriScheme } from '@portcullis/metadata';
import { isLoopbackHost } from '@portcullis/protocol';

/** The host of a URL (with its port), or undefined for something that is not one: what consent pages show. */
export function hostOf(uri: string): string | undefined {
  try {
    return new URL(uri).host || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a redirect URI stays on the user's own computer (http on a loopback host): a client whose every redirect
 * URI is local gets a warning on consent, and no code goes to one without a click (RFC 8252 8.6).
 */
export function isLocalRedirect(uri: string): boolean {
  try {
    const url = new URL(uri);
    return url.protocol === 'http:' && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/**
 * Whether a redirect URI uses a private-use URI scheme (RFC 8252 7.1): the browser hands it to whichever
 * application on this device claims the scheme. Only schemes the operator allows are ever registered, so any
 * scheme but http and https is one.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-8.6
 */
export function isPrivateUseRedirect(uri: string): boolean {
  const scheme = uriScheme(uri);
  return scheme !== undefined && scheme !== 'http' && scheme !== 'https';
}

/**
 * Where a redirect URI sends the person, in words: the host of a web address, or, for a private-use scheme, the
 * application that opens such links (its "host" names nothing on the network).
 */
export function redirectDestination(uri: string): string {
  if (isPrivateUseRedirect(uri)) return `the application that opens ${uriScheme(uri)}: links`;
  return hostOf(uri) ?? uri;
}
