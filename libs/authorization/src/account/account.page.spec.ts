import { describe, expect, it } from '@jest/globals';
import { checkAccountSections, type AccountSection } from './account-section.js';
import { accountPage, csrfField, type AccountPageModel } from './account.page.js';

const MODEL: AccountPageModel = {
  username: 'alice <x>',
  apps: [],
  revokeAction: '/account/revoke',
  signOutAction: '/account/logout',
  csrf: 'tok"en',
  revoked: false,
};

const body = (html: string) => html.slice(html.indexOf('<main>'), html.indexOf('</main>') + '</main>'.length);

function section(name: string, actions: string[] = ['go']): AccountSection {
  return { name, actions, render: async () => '', submit: async () => ({}) };
}

describe('the account page with the sections of an app', () => {
  it('is the authorization server’s own page, byte for byte, without sections', () => {
    expect(body(accountPage(MODEL))).toBe(
      '<main>\n<h1>Connected apps</h1>\n<p>Signed in as <strong>alice &#60;x&#62;</strong>. These applications can act for you. Revoking one stops it from getting new tokens at once and it has to ask you again; a token it already holds may work for a few more minutes, until it expires.</p>\n\n<p class="hint" id="no-apps">You have not approved any application.</p>\n<form method="post" action="/account/logout">\n<input type="hidden" name="csrf" value="tok&#34;en">\n<button type="submit" class="secondary" id="sign-out">Sign out</button>\n</form>\n</main>',
    );
    expect(accountPage({ ...MODEL, sections: [] })).toBe(accountPage(MODEL));
  });

  it('puts each section in its own element, in order, after the apps and before the sign-out form', () => {
    const html = accountPage({
      ...MODEL,
      sections: [
        { name: 'first', html: '<h2>First</h2>' },
        { name: 'second', html: '<h2>Second</h2>' },
      ],
    });
    const positions = [
      'id="no-apps"',
      '<section class="account-section" data-section="first">\n<h2>First</h2>\n</section>',
      '<section class="account-section" data-section="second">\n<h2>Second</h2>\n</section>',
      'id="sign-out"',
    ].map((part) => html.indexOf(part));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('gives sections the page’s CSRF field, escaped', () => {
    expect(csrfField('a"b<c')).toBe('<input type="hidden" name="csrf" value="a&#34;b&#60;c">');
  });
});

describe('the sections an app may add', () => {
  it('takes names that are path segments, unique, and actions named alike', () => {
    expect(() =>
      checkAccountSections([section('connections', ['disconnect']), section('keys-2')]),
    ).not.toThrow();
  });

  it.each([
    ['a name that is no path segment', [section('../revoke')]],
    ['an upper-case name', [section('Connections')]],
    ['an empty name', [section('')]],
    ['the page’s own notice parameter', [section('revoked')]],
    ['the same name twice', [section('connections'), section('connections')]],
    ['an action that is no path segment', [section('connections', ['dis/connect'])]],
  ])('refuses %s at boot', (_case, sections) => {
    expect(() => checkAccountSections(sections)).toThrow();
  });
});
