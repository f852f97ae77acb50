// A person at a browser without JavaScript: follows redirects, answers the proxy's consent page and the
// upstream's sign-in and consent pages as told, and stops at the client's redirect URI without requesting it.
import type { UserAgent, UserAgentSession } from '@portcullis/client';
import type { HeadlessUserAgent, UserAgentResponse } from '@portcullis/testing';

/**
 * The pages of a flow, as the person recognises them: the proxy's consent page before going upstream; a Portcullis
 * consent page for a signed-in session (the proxy's after sign-in, or a Portcullis upstream's); the upstream's
 * one-click confirmation before a code goes to a public loopback client; the upstream's sign-in page (oidc-provider's or
 * a Portcullis authorization server's); oidc-provider's consent page, GitHub's "Authorize" page, or the consent page
 * of the Google and Entra fakes.
 */
export type PageKind =
  'proxy-consent' | 'session-consent' | 'confirm' | 'upstream-login' | 'upstream-consent' | 'other';

export interface PersonChoices {
  /** What to answer on a consent page of the proxy; `leave` stops there without answering. */
  readonly consent?: 'approve' | 'deny' | 'leave';
  /** The login name to sign in with upstream. */
  readonly login?: string;
  /** The password, for an upstream that checks one. */
  readonly password?: string;
  /** What to answer on GitHub's "Authorize" page (the GitHub fake's); default authorize. */
  readonly upstreamConsent?: 'approve' | 'deny';
}

export interface Walk {
  /** The client redirect the flow ended at (never requested), if it got there. */
  readonly stoppedAt?: URL;
  /** The last response: the redirect to the client, or the page the walk stopped on. */
  readonly response: UserAgentResponse;
  /** The pages seen, in order. */
  readonly pages: PageKind[];
  /** Every URL requested, in order. */
  readonly visited: string[];
  /** The pages shown, in order (those in `pages`). */
  readonly shown: UserAgentResponse[];
}

/** What kind of page `response` is. */
export function pageKind(response: UserAgentResponse): PageKind {
  if (!(response.headers.get('content-type') ?? '').includes('text/html')) return 'other';
  const forms = response.forms();
  if (forms.some((form) => form.action.endsWith('/upstream/consent'))) return 'proxy-consent';
  if (forms.some((form) => form.action.endsWith('/consent'))) return 'session-consent';
  if (forms.some((form) => form.action.endsWith('/continue'))) return 'confirm';
  if (forms.some((form) => 'login' in form.fields || 'username' in form.fields)) return 'upstream-login';
  if (forms.some((form) => form.fields['prompt']?.[0] === 'consent')) return 'upstream-consent';
  if (forms.some((form) => form.action.endsWith('/login/oauth/authorize'))) return 'upstream-consent';
  // The consent page of libs/testing's OpenID Connect provider fakes (Google, Entra).
  if (forms.some((form) => form.action.endsWith('/fake/oauth/approve'))) return 'upstream-consent';
  return 'other';
}

/**
 * Walks from `response` until a redirect to `redirectUri` (returned, not requested) or a page the person does not
 * answer.
 */
export async function walk(
  ua: HeadlessUserAgent,
  response: UserAgentResponse,
  redirectUri: string,
  choices: PersonChoices = {},
): Promise<Walk> {
  const pages: PageKind[] = [];
  const shown: UserAgentResponse[] = [];
  const visited = [response.url];
  let current = response;
  for (let steps = 0; steps < 30; steps++) {
    const location = current.location;
    if ([301, 302, 303, 307, 308].includes(current.status) && location) {
      if (location.startsWith(redirectUri))
        return { stoppedAt: new URL(location), response: current, pages, visited, shown };
      current = await ua.follow(current);
      visited.push(current.url);
      continue;
    }
    const kind = current.status === 200 ? pageKind(current) : 'other';
    pages.push(kind);
    shown.push(current);
    const consent = choices.consent ?? 'approve';
    if (kind === 'proxy-consent' || kind === 'session-consent' || kind === 'confirm') {
      if (consent === 'leave') return { response: current, pages, visited, shown };
      current = await ua.submit(current.form(), {}, { button: { name: 'decision', value: consent } });
    } else if (kind === 'upstream-login') {
      const form = current.form();
      const name = 'login' in form.fields ? 'login' : 'username';
      current = await ua.submit(form, {
        [name]: choices.login ?? 'alice',
        password: choices.password ?? 'anything',
      });
    } else if (kind === 'upstream-consent') {
      current =
        choices.upstreamConsent === 'deny'
          ? await ua.submit(current.form(), {}, { button: { name: 'authorize', value: '0' } })
          : await ua.submit(current.form());
    } else {
      return { response: current, pages, visited, shown };
    }
    visited.push(current.url);
  }
  throw new Error(`the walk did not end: ${visited.join(' -> ')}`);
}

/**
 * The person as libs/client's user-agent: each authorization URL the client opens is walked with `choices`; the
 * callback it ends at is handed back to the client.
 */
export class PersonAtBrowser implements UserAgent {
  readonly redirectUris: readonly string[];
  /** Every walk, in order. */
  readonly walks: Walk[] = [];

  constructor(
    private readonly ua: HeadlessUserAgent,
    private readonly redirectUri = 'http://127.0.0.1/callback',
    private readonly choices: PersonChoices = {},
  ) {
    this.redirectUris = [redirectUri];
  }

  async begin(): Promise<UserAgentSession> {
    return {
      redirectUri: this.redirectUri,
      authorize: async (authorizationUrl) => {
        const result = await walk(
          this.ua,
          await this.ua.get(authorizationUrl),
          this.redirectUri,
          this.choices,
        );
        this.walks.push(result);
        if (!result.stoppedAt)
          throw new Error(`the flow stopped on a page: ${result.response.status} ${result.response.url}`);
        return result.stoppedAt.href;
      },
      close: async () => undefined,
    };
  }
}
