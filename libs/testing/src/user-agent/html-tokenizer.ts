import { decodeHtmlEntities } from './html-entities.js';

/** One token of an HTML document: what a form parser needs, without a tree. */
export type HtmlToken =
  | { kind: 'start'; name: string; attributes: ReadonlyMap<string, string>; selfClosing: boolean }
  | { kind: 'end'; name: string }
  | { kind: 'text'; text: string };

/** Elements whose content is not markup: skipped (script, style) or read as text (textarea, title). */
const RAW_TEXT = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes']);
const ESCAPABLE_RAW_TEXT = new Set(['textarea', 'title']);

const WHITESPACE = /[\t\n\f\r ]/;

/**
 * Splits HTML into start tags, end tags and decoded text, the way the HTML tokenizer does for well-formed and
 * the usual malformed markup: comments, doctypes and processing instructions are dropped, `<` that opens
 * no tag is text, attribute names are lower-cased and the first of a repeated attribute wins. `<noscript>`
 * content is markup, as for a browser with scripting off.
 *
 * @see https://html.spec.whatwg.org/multipage/parsing.html#tokenization
 */
export function tokenizeHtml(source: string): HtmlToken[] {
  const html = source.replace(/\r\n?/g, '\n');
  const tokens: HtmlToken[] = [];
  let text = '';
  const flushText = () => {
    if (text) tokens.push({ kind: 'text', text: decodeHtmlEntities(text) });
    text = '';
  };
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) {
      text += html.slice(i);
      break;
    }
    text += html.slice(i, lt);
    const next = html[lt + 1] ?? '';
    if (html.startsWith('<!--', lt)) {
      flushText();
      i = skipComment(html, lt);
    } else if (next === '!' || next === '?') {
      flushText();
      i = skipPast(html, lt, '>');
    } else if (next === '/') {
      const nameStart = lt + 2;
      if (/[A-Za-z]/.test(html[nameStart] ?? '')) {
        flushText();
        const end = skipPast(html, nameStart, '>');
        const name = (/^[^\t\n\f\r />]+/.exec(html.slice(nameStart, end))?.[0] ?? '').toLowerCase();
        tokens.push({ kind: 'end', name });
        i = end;
      } else if (html[nameStart] === '>') {
        i = nameStart + 1;
      } else if (nameStart >= html.length) {
        text += '</';
        i = html.length;
      } else {
        flushText();
        i = skipPast(html, lt, '>');
      }
    } else if (/[A-Za-z]/.test(next)) {
      const tag = readStartTag(html, lt + 1);
      if (!tag) break; // a tag cut off by the end of the document is dropped
      flushText();
      tokens.push(tag.token);
      i = tag.end;
      const { name } = tag.token;
      if (RAW_TEXT.has(name) || ESCAPABLE_RAW_TEXT.has(name)) {
        const close = findClosingTag(html, i, name);
        if (ESCAPABLE_RAW_TEXT.has(name) && close > i) {
          tokens.push({ kind: 'text', text: decodeHtmlEntities(html.slice(i, close)) });
        }
        i = close;
      }
    } else {
      text += '<';
      i = lt + 1;
    }
  }
  flushText();
  return tokens;
}

interface StartTag {
  token: Extract<HtmlToken, { kind: 'start' }>;
  end: number;
}

function readStartTag(html: string, nameStart: number): StartTag | undefined {
  let i = nameStart;
  while (i < html.length && !WHITESPACE.test(html.charAt(i)) && html[i] !== '/' && html[i] !== '>') i++;
  const name = html.slice(nameStart, i).toLowerCase();
  const attributes = new Map<string, string>();
  let selfClosing = false;
  while (i < html.length) {
    const c = html.charAt(i);
    if (WHITESPACE.test(c)) {
      i++;
    } else if (c === '>') {
      return { token: { kind: 'start', name, attributes, selfClosing }, end: i + 1 };
    } else if (c === '/') {
      selfClosing = html[i + 1] === '>';
      i++;
    } else {
      selfClosing = false;
      const attrStart = i;
      i++; // a first `=` belongs to the name
      while (i < html.length && !/[\t\n\f\r />=]/.test(html.charAt(i))) i++;
      const attrName = html.slice(attrStart, i).toLowerCase();
      while (i < html.length && WHITESPACE.test(html.charAt(i))) i++;
      let value = '';
      if (html[i] === '=') {
        i++;
        while (i < html.length && WHITESPACE.test(html.charAt(i))) i++;
        const quote = html[i];
        if (quote === '"' || quote === "'") {
          const close = html.indexOf(quote, i + 1);
          if (close === -1) return undefined;
          value = html.slice(i + 1, close);
          i = close + 1;
        } else {
          const valueStart = i;
          while (i < html.length && !WHITESPACE.test(html.charAt(i)) && html[i] !== '>') i++;
          value = html.slice(valueStart, i);
        }
      }
      if (!attributes.has(attrName)) attributes.set(attrName, decodeHtmlEntities(value, 'attribute'));
    }
  }
  return undefined;
}

/** Where `</name` (any case, then whitespace, `/` or `>`) starts; the document's end when it never does. */
function findClosingTag(html: string, from: number, name: string): number {
  const closing = new RegExp(`</${name}(?=[\\t\\n\\f\\r />]|$)`, 'gi');
  closing.lastIndex = from;
  return closing.exec(html)?.index ?? html.length;
}

function skipComment(html: string, lt: number): number {
  // `<!-->` and `<!--->` are complete (empty) comments.
  if (html.startsWith('<!-->', lt)) return lt + 5;
  if (html.startsWith('<!--->', lt)) return lt + 6;
  const end = html.indexOf('-->', lt + 4);
  return end === -1 ? html.length : end + 3;
}

function skipPast(html: string, from: number, char: string): number {
  const end = html.indexOf(char, from);
  return end === -1 ? html.length : end + 1;
}
