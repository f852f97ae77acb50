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
 * URI is local gets a warning on consent, and a public one is never given a code without a click (RFC 8252 8.6).
 */
export function isLocalRedirect(uri: string): boolean {
  try {
    const url = new URL(uri);
    return url.protocol === 'http:' && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}
