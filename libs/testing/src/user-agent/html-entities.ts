// Character references as the HTML tokenizer reads them, for the subset of the named references a login or
// consent page plausibly uses. The full table has over 2,000 names; an unknown name is left as written,
// which is also what a browser does with a name it does not know.

/** U+00A0..U+00FF in order: the Latin-1 names, which HTML also accepts without the trailing `;`. */
const LATIN1_NAMES =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 ' +
  'acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml ' +
  'Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde ' +
  'Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ' +
  'ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide ' +
  'oslash ugrave uacute ucirc uuml yacute thorn yuml';

/** Names HTML accepts without `;` (the legacy set): the Latin-1 block and the markup characters. */
const LEGACY = new Map<string, string>([
  ['amp', '&'],
  ['AMP', '&'],
  ['lt', '<'],
  ['LT', '<'],
  ['gt', '>'],
  ['GT', '>'],
  ['quot', '"'],
  ['QUOT', '"'],
  ['COPY', '\u00a9'],
  ['REG', '\u00ae'],
  ...LATIN1_NAMES.split(' ').map((name, i): [string, string] => [name, String.fromCharCode(0xa0 + i)]),
]);

/** Names that need the `;` (name and hexadecimal code point): typography and arrows templates emit. */
const NAMED =
  'apos:27 OElig:152 oelig:153 Scaron:160 scaron:161 Yuml:178 fnof:192 circ:2c6 tilde:2dc ensp:2002 ' +
  'emsp:2003 thinsp:2009 zwnj:200c zwj:200d lrm:200e rlm:200f ndash:2013 mdash:2014 lsquo:2018 rsquo:2019 ' +
  'sbquo:201a ldquo:201c rdquo:201d bdquo:201e dagger:2020 Dagger:2021 bull:2022 hellip:2026 permil:2030 ' +
  'prime:2032 Prime:2033 lsaquo:2039 rsaquo:203a euro:20ac trade:2122 larr:2190 uarr:2191 rarr:2192 ' +
  'darr:2193 harr:2194 minus:2212 notin:2209 infin:221e ne:2260 le:2264 ge:2265 check:2713 cross:2717 Tab:9 NewLine:a ' +
  'excl:21 num:23 percnt:25 lpar:28 rpar:29 plus:2b comma:2c period:2e sol:2f colon:3a semi:3b equals:3d ' +
  'quest:3f lowbar:5f';

const WITH_SEMICOLON = new Map<string, string>([
  ...LEGACY,
  ...NAMED.split(' ').map((entry): [string, string] => {
    const [name, hex] = entry.split(':') as [string, string];
    return [name, String.fromCodePoint(parseInt(hex, 16))];
  }),
]);

/** What numeric references to C1 controls mean: HTML reads them as Windows-1252. */
const WINDOWS_1252 = new Map<number, number>(
  [
    0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0,
    0x017d, 0, 0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a,
    0x0153, 0, 0x017e, 0x0178,
  ].flatMap((code, i): [number, number][] => (code ? [[0x80 + i, code]] : [])),
);

const REFERENCE = /&(?:#[xX]([0-9a-fA-F]+);?|#([0-9]+);?|([A-Za-z][A-Za-z0-9]*)(;?))/g;

/**
 * Decodes character references in text or in an attribute value. In an attribute, a legacy name without
 * `;` followed by a letter, digit or `=` stays as written, so `action="/cb?a=1&copy=2"` keeps its `&copy=`.
 *
 * @see https://html.spec.whatwg.org/multipage/parsing.html#character-reference-state
 */
export function decodeHtmlEntities(text: string, context: 'text' | 'attribute' = 'text'): string {
  if (!text.includes('&')) return text;
  return text.replace(
    REFERENCE,
    (
      match,
      hex: string | undefined,
      dec: string | undefined,
      name: string | undefined,
      semi: string,
      offset: number,
    ) => {
      if (hex !== undefined || dec !== undefined) {
        return numericReference(hex !== undefined ? parseInt(hex, 16) : parseInt(dec ?? '', 10));
      }
      const word = name ?? '';
      if (semi === ';') {
        const exact = WITH_SEMICOLON.get(word);
        if (exact !== undefined) return exact;
      }
      // Without a `;`, HTML takes the longest legacy name that prefixes what follows the `&`.
      for (let length = word.length; length >= 2; length--) {
        const decoded = LEGACY.get(word.slice(0, length));
        if (decoded === undefined) continue;
        const rest = match.slice(1 + length);
        if (context === 'attribute') {
          const next = length < word.length ? word.charAt(length) : text.charAt(offset + match.length);
          if (/^[A-Za-z0-9=]$/.test(next)) return match;
        }
        return decoded + rest;
      }
      return match;
    },
  );
}

function numericReference(code: number): string {
  if (!Number.isFinite(code) || code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
    return '\ufffd';
  }
  return String.fromCodePoint(WINDOWS_1252.get(code) ?? code);
}
