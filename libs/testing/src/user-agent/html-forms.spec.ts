import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { decodeHtmlEntities } from './html-entities.js';
import { parseForms } from './html-forms.js';

const PAGE = 'http://127.0.0.1:4000/interaction/abc/login?lang=en';

function onlyForm(html: string, page = PAGE) {
  const forms = parseForms(html, page);
  expect(forms).toHaveLength(1);
  return forms[0]!;
}

describe('parseForms', () => {
  it('reads hidden and text inputs with their entity-decoded values', () => {
    const form = onlyForm(`
      <form method="post">
        <input type="hidden" name="state" value="a&amp;b&#x3D;&#61;&quot;x&quot;">
        <input name="username" value='O&apos;Brien &eacute;&hellip;'>
        <input type=password name=password>
      </form>`);
    expect(form.fields).toEqual({ state: ['a&b=="x"'], username: ["O'Brien é…"], password: [''] });
  });

  it('keeps a legacy entity name followed by = in an attribute as written, as browsers do', () => {
    const form = onlyForm('<form action="/cb?a=1&copy=2&amp;lt=3&not;"><input name=x value="&lt&gt"></form>');
    expect(form.action).toBe('http://127.0.0.1:4000/cb?a=1&copy=2&lt=3%C2%AC');
    expect(form.fields['x']).toEqual(['<>']);
  });

  it('resolves the action against the page, submits to the page itself without one, and honours <base href>', () => {
    expect(onlyForm('<form action="../consent"></form>').action).toBe(
      'http://127.0.0.1:4000/interaction/consent',
    );
    expect(onlyForm('<form></form>').action).toBe(PAGE);
    expect(onlyForm('<form action=""></form>').action).toBe(PAGE);
    const withBase = onlyForm(
      '<head><base href="https://as.example/oauth/"></head><form action="token"></form>',
    );
    expect(withBase.action).toBe('https://as.example/oauth/token');
  });

  it('defaults to GET and urlencoded, and reads method and enctype case-insensitively', () => {
    const [plain, post, multipart] = parseForms(
      '<form></form><form METHOD="Post" enctype="bogus"></form><form method=dialog enctype="Multipart/Form-Data"></form>',
      PAGE,
    );
    expect([plain!.method, plain!.enctype]).toEqual(['GET', 'application/x-www-form-urlencoded']);
    expect([post!.method, post!.enctype]).toEqual(['POST', 'application/x-www-form-urlencoded']);
    expect([multipart!.method, multipart!.enctype]).toEqual(['GET', 'multipart/form-data']);
  });

  it('returns several forms in document order, each with its own controls, id and name', () => {
    const forms = parseForms(
      `<form id="login" action="/login" method="post"><input name="username"></form>
       <p>or</p>
       <form name="passkey" action="/passkey"><input type="hidden" name="challenge" value="c1"></form>`,
      PAGE,
    );
    expect(forms.map((form) => [form.id, form.name, Object.keys(form.fields)])).toEqual([
      ['login', undefined, ['username']],
      [undefined, 'passkey', ['challenge']],
    ]);
  });

  it('finds controls inside nested markup and gives controls with a form attribute to the form named', () => {
    const form = parseForms(
      `<form id="consent" action="/consent" method="post">
         <table><tr><td><label>Name <div><span><input name="a" value="1"></span></div></label></td></tr></table>
       </form>
       <div><input name="b" value="2" form="consent"><input name="c" value="3" form="nowhere"></div>`,
      PAGE,
    );
    expect(form[0]!.fields).toEqual({ a: ['1'], b: ['2'] });
  });

  it('lists submit buttons with name, value and their text with whitespace collapsed and markup dropped', () => {
    const form = onlyForm(`<form action="/consent" method="post">
        <button name="decision" value="approve" class="primary">
          <svg><path d="M0"/></svg> <span>Allow</span>   &amp; continue
        </button>
        <button type="submit" name="decision" value="deny">Deny</button>
        <button type="button" name="js">Not a submit button</button>
        <button type="reset">Reset</button>
        <button name="off" disabled>Disabled</button>
        <input type="submit" name="alt" value="Use another account">
        <input type="submit">
        <button formaction="/consent/cancel" formmethod="get" name="cancel">Cancel</button>
      </form>`);
    expect(form.buttons).toEqual([
      { name: 'decision', value: 'approve', text: 'Allow & continue' },
      { name: 'decision', value: 'deny', text: 'Deny' },
      { name: 'alt', value: 'Use another account', text: 'Use another account' },
      { name: '', value: '', text: 'Submit' },
      {
        name: 'cancel',
        value: '',
        text: 'Cancel',
        formAction: 'http://127.0.0.1:4000/consent/cancel',
        formMethod: 'GET',
      },
    ]);
    expect(form.fields).toEqual({});
  });

  it('reads a textarea as text: entities decoded, markup kept, the first newline dropped', () => {
    const form = onlyForm(
      '<form><textarea name="note">\nline 1 &lt;b&gt;\n<b>not bold</b></TEXTAREA></form>',
    );
    expect(form.fields['note']).toEqual(['line 1 <b>\n<b>not bold</b>']);
  });

  it('submits checkboxes and radios only when checked, "on" without a value, the last checked radio of a group', () => {
    const form = onlyForm(`<form>
        <input type="checkbox" name="scope" value="openid" checked>
        <input type="checkbox" name="scope" value="email">
        <input type="checkbox" name="scope" value="profile" checked="checked">
        <input type="checkbox" name="remember" checked>
        <input type="checkbox" name="newsletter">
        <input type="radio" name="plan" value="a" checked><input type="radio" name="plan" value="b" checked>
        <input type="radio" name="size" value="s">
      </form>`);
    expect(form.fields).toEqual({ scope: ['openid', 'profile'], remember: ['on'], plan: ['b'] });
    expect(form.controls.map((c) => `${c.name}:${c.type}`)).toEqual([
      'scope:checkbox',
      'scope:checkbox',
      'scope:checkbox',
      'remember:checkbox',
      'newsletter:checkbox',
      'plan:radio',
      'plan:radio',
      'size:radio',
    ]);
  });

  it('submits the selected option of a select, its text when it has no value, else the first enabled option', () => {
    const form = onlyForm(`<form>
        <select name="account"><option value="1">Alice<option value="2" selected>Bob</option></select>
        <select name="lang"><option> English &amp; more </option><option>Deutsch</select>
        <select name="first"><option disabled value="x">X</option><optgroup label="g"><option value="y">Y</optgroup></select>
        <select name="tenants" multiple><option value="t1" selected><option value="t2"><option value="t3" selected></select>
        <select name="none" multiple><option value="n1"></select>
        <select name="gone"><option value="g" selected disabled>G</option></select>
      </form>`);
    expect(form.fields).toEqual({
      account: ['2'],
      lang: ['English & more'],
      first: ['y'],
      tenants: ['t1', 't3'],
    });
    expect(form.controls.find((c) => c.name === 'tenants')?.type).toBe('select-multiple');
  });

  it('leaves out disabled controls, unnamed ones, and non-submitting input types', () => {
    const form = onlyForm(`<form>
        <input name="a" value="1" disabled><input value="no name"><input type="reset" name="r">
        <input type="button" name="b" value="x"><input type="file" name="f"><input type="image" name="i">
        <select name="s" disabled><option selected>x</select><textarea name="t" disabled>x</textarea>
        <input name="kept" value="yes">
      </form>`);
    expect(form.fields).toEqual({ kept: ['yes'] });
  });

  it('ignores forms in comments and scripts, a nested form tag, and a stray < in text', () => {
    const forms = parseForms(
      `<!-- <form action="/commented"></form> -->
       <script>document.write('<form action="/scripted"><input name="x"></form>')</script>
       <p>1 < 2</p>
       <form action="/real"><form action="/nested"><input name="inner" value="1"></form>
       <noscript><form action="/noscript"></form></noscript>`,
      PAGE,
    );
    expect(forms.map((form) => form.action)).toEqual([
      'http://127.0.0.1:4000/real',
      'http://127.0.0.1:4000/noscript',
    ]);
    expect(forms[0]!.fields).toEqual({ inner: ['1'] });
  });

  it('strips line breaks from single-line input values and fills an empty _charset_ with UTF-8', () => {
    const form = onlyForm(
      '<form><input name="t" value="a&#10;b"><input type="email" name="e" value=" a@b.c "><input type="hidden" name="_charset_"></form>',
    );
    expect(form.fields).toEqual({ t: ['ab'], e: ['a@b.c'], _charset_: ['UTF-8'] });
  });

  it('reads back any attribute value a server escaped, whatever characters it holds', () => {
    const escape = (text: string) =>
      text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), (name, value) => {
        fc.pre(name.trim() !== '' && !/[\r\n]/.test(value) && !/[\r\n]/.test(name));
        const form = onlyForm(
          `<form><input type="hidden" name="${escape(name)}" value="${escape(value)}"></form>`,
        );
        expect(form.fields[name]).toEqual([value]);
      }),
    );
  });
});

describe('decodeHtmlEntities', () => {
  it('decodes legacy names without a semicolon in text but not before = or an alphanumeric in an attribute', () => {
    expect(decodeHtmlEntities('&copy 2026 &ampx &notin; &notit;')).toBe('© 2026 &x ∉ ¬it;');
    expect(decodeHtmlEntities('?a&copy=1&ampx', 'attribute')).toBe('?a&copy=1&ampx');
    expect(decodeHtmlEntities('&amp &lt', 'attribute')).toBe('& <');
  });

  it('reads numeric references as browsers do: C1 codes as Windows-1252, invalid ones as U+FFFD', () => {
    expect(decodeHtmlEntities('&#x80;&#150;&#0;&#xD800;&#x110000;&#128512;')).toBe('€–\ufffd\ufffd\ufffd😀');
  });

  it('leaves an unknown name as written', () => {
    expect(decodeHtmlEntities('&unknownentity; &')).toBe('&unknownentity; &');
  });
});
