import { describe, expect, it } from '@jest/globals';
import { buildFormSubmission } from './form-submission.js';
import { parseForms } from './html-forms.js';

const PAGE = 'http://127.0.0.1:4000/consent?uid=1';

const consent = parseForms(
  `<form id="consent" action="/consent?uid=1" method="post">
     <input type="hidden" name="csrf" value="t0k&amp;n">
     <input type="checkbox" name="scope" value="openid" checked>
     <input type="checkbox" name="scope" value="email" checked>
     <input type="checkbox" name="remember">
     <textarea name="note">a
b</textarea>
     <button name="decision" value="approve">Allow</button>
     <button name="decision" value="deny">Deny</button>
   </form>`,
  PAGE,
)[0]!;

describe('buildFormSubmission', () => {
  it('posts the fields urlencoded with the first button, line breaks as CRLF', () => {
    const submission = buildFormSubmission(consent);
    expect(submission).toMatchObject({
      method: 'POST',
      url: 'http://127.0.0.1:4000/consent?uid=1',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(submission.body).toBe('csrf=t0k%26n&scope=openid&scope=email&note=a%0D%0Ab&decision=approve');
  });

  it('replaces a field with the values given, removes it with null and adds a named control that was off', () => {
    const submission = buildFormSubmission(consent, { scope: ['email'], note: null, remember: 'on' });
    expect(submission.entries).toEqual([
      ['csrf', 't0k&n'],
      ['scope', 'email'],
      ['remember', 'on'],
      ['decision', 'approve'],
    ]);
  });

  it('sends the button chosen by value or text, and fails listing the buttons when none matches', () => {
    expect(buildFormSubmission(consent, {}, { button: { value: 'deny' } }).entries.at(-1)).toEqual([
      'decision',
      'deny',
    ]);
    expect(buildFormSubmission(consent, {}, { button: { text: 'Deny' } }).entries.at(-1)).toEqual([
      'decision',
      'deny',
    ]);
    expect(() => buildFormSubmission(consent, {}, { button: { value: 'maybe' } })).toThrow(
      /no button matches \{"value":"maybe"\}.*"approve".*"deny"/,
    );
  });

  it('refuses a value for a control the form does not have unless allowUnknownFields is set', () => {
    expect(() => buildFormSubmission(consent, { scpoe: 'openid' })).toThrow(
      /no control named "scpoe"; its controls are "csrf", "scope", "remember", "note"/,
    );
    const forced = buildFormSubmission(consent, { client_id: 'evil' }, { allowUnknownFields: true });
    expect(forced.entries).toContainEqual(['client_id', 'evil']);
  });

  it('puts a GET form in the query of its action, replacing the query the action had', () => {
    const [search] = parseForms(
      '<form action="/search?old=1#top"><input name="q" value="a b&amp;c"><input type=submit name=go value=Go></form>',
      PAGE,
    );
    const submission = buildFormSubmission(search!);
    expect(submission).toMatchObject({
      method: 'GET',
      url: 'http://127.0.0.1:4000/search?q=a+b%26c&go=Go#top',
    });
    expect(submission.body).toBeUndefined();
  });

  it("lets a button's formaction and formmethod override the form's", () => {
    const [form] = parseForms(
      `<form action="/consent" method="post"><input type="hidden" name="uid" value="1">
         <button formaction="/abort" formmethod="get" name="x" value="y">Cancel</button></form>`,
      PAGE,
    );
    expect(buildFormSubmission(form!)).toMatchObject({
      method: 'GET',
      url: 'http://127.0.0.1:4000/abort?uid=1&x=y',
    });
  });

  it('sends a multipart form as FormData without setting the content-type itself', () => {
    const [form] = parseForms(
      '<form method="post" enctype="multipart/form-data"><input name="a" value="1"></form>',
      PAGE,
    );
    const submission = buildFormSubmission(form!);
    expect(submission.body).toBeInstanceOf(FormData);
    expect([...(submission.body as FormData).entries()]).toEqual([['a', '1']]);
    expect(submission.contentType).toBeUndefined();
  });
});
