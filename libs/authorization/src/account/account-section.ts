import type { Decision } from '../authorize/flow/interaction-step.js';
import type { CookieExchange } from '../http/cookies.js';
import type { RequestParameters } from '../http/request-parameters.js';

/**
 * The token the account page's extra sections are provided under: an array of {@link AccountSection}s, in page order
 * (`AuthorizationServerModule.forRoot({ accountSections })`). Without it the page is the authorization server's own.
 */
export const ACCOUNT_SECTIONS = Symbol('ACCOUNT_SECTIONS');

/** What a section renders for: the person signed in, and what its forms need. */
export interface AccountSectionView {
  /** The local user signed in on the page. */
  readonly userId: string;
  /** The page's CSRF token (bound to the session): every form of the section sends it as `csrf`. */
  readonly csrf: string;
  /** The `<input type="hidden" name="csrf">` carrying {@link csrf}, escaped, for the section's forms. */
  readonly csrfField: string;
  /** The path a form of the section posts `action` to: `/account/<section>/<action>` under the issuer. */
  action(action: string): string;
  /**
   * The notice the section's last action answered (see {@link AccountSectionOutcome}), when the page comes right
   * after it: a key of the section's own, to be shown as the section's fixed text, never written on the page itself.
   */
  readonly notice?: string;
}

/** A form posted to one of a section's actions, its CSRF token and session already checked. */
export interface AccountSectionSubmission {
  /** The local user signed in: an action changes what is theirs, and only that. */
  readonly userId: string;
  /** One of the section's {@link AccountSection.actions}. */
  readonly action: string;
  /** The form's fields (`csrf` among them). */
  readonly form: RequestParameters;
  /** The browser's cookies, for an action that sends it elsewhere with a cookie of its own (see `next`). */
  readonly cookies: CookieExchange;
}

/**
 * What an action answers: the browser goes back to `/account` (303), with the section's notice when there is one;
 * or, with `next`, where the section sends it instead (a redirect to a provider to connect an account, a page).
 */
export interface AccountSectionOutcome {
  /** A key the section shows a fixed text for: lowercase letters, digits and hyphens. */
  readonly notice?: string;
  readonly next?: Extract<Decision, { readonly kind: 'page' | 'redirect' }>;
}

/**
 * A section an app adds to the connected apps page (`/account`) for the person signed in, below the apps they
 * approved: its HTML, escaped by the section (`escapeHtml`), with no script and under the pages' CSP; and its actions,
 * plain HTML forms posted to `/account/<name>/<action>`. The page checks a posted form exactly as its revoke form's
 * (the session, the CSRF token bound to it, no unsafe character) before {@link submit} runs; a form that fails is
 * refused (403) and the section never sees it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.7 (CSRF)
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.16 (no framing)
 */
export interface AccountSection {
  /** Its path segment under `/account/` and the query parameter of its notices: lowercase letters, digits, `-`. */
  readonly name: string;
  /** The actions it answers at `/account/<name>/<action>`, named like {@link name}; any other path is not found. */
  readonly actions: readonly string[];
  /** The section's content (escaped HTML, inside the page's `<section>` for it) for the person signed in. */
  render(view: AccountSectionView): Promise<string>;
  /** Answers one of its actions for the person signed in, the form's CSRF token already checked. */
  submit(submission: AccountSectionSubmission): Promise<AccountSectionOutcome>;
}

/** Names of sections, actions and notices: they go into paths and query strings as they are. */
export const ACCOUNT_SECTION_NAME = /^[a-z][a-z0-9-]{0,39}$/;

/** Refuses, at boot, sections whose names cannot be paths or collide. */
export function checkAccountSections(sections: readonly AccountSection[]): void {
  const names = new Set<string>();
  for (const section of sections) {
    if (!ACCOUNT_SECTION_NAME.test(section.name)) {
      throw new Error(`account section name ${JSON.stringify(section.name)} is not ${ACCOUNT_SECTION_NAME}`);
    }
    // `revoked` is the page's own notice parameter.
    if (names.has(section.name) || section.name === 'revoked') {
      throw new Error(`account section name ${section.name} is taken`);
    }
    names.add(section.name);
    for (const action of section.actions) {
      if (!ACCOUNT_SECTION_NAME.test(action)) {
        throw new Error(`action ${JSON.stringify(action)} of account section ${section.name} is not a name`);
      }
    }
  }
}
