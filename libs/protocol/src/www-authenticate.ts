/**
 * Reading and writing the `WWW-Authenticate` header.
 *
 * Rules kept here:
 * - RFC 9110 Section 11.6.1: `WWW-Authenticate = #challenge`, several challenges in one field value, separated by
 *   commas like their parameters; empty list elements are accepted (RFC 9110 Section 5.6.1.2).
 * - RFC 9110 Section 11.2: `challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ]`,
 *   `auth-param = token BWS "=" BWS ( token / quoted-string )`; scheme and parameter names are case-insensitive
 *   (returned lowercase); a token and a quoted-string value mean the same; each parameter name MUST occur only
 *   once per challenge, so a challenge repeating one is invalid and dropped (also RFC 6750 Section 3).
 * - RFC 9110 Section 5.6.4: quoted-string with quoted-pair escapes; control characters other than HTAB are never
 *   part of a field value.
 * - Parsing never throws: what cannot be parsed is skipped, and a challenge containing anything unparseable is
 *   dropped whole rather than half-read.
 * - Formatting refuses CR, LF and every other control character (header injection, RFC 9110 Section 5.5), and
 *   writes every parameter value as a quoted-string, escaping `"` and `\` (RFC 6750 Section 3 quotes its values).
 */

/**
 * One authentication challenge: a scheme with either auth-params or a token68.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9110#section-11.2 RFC 9110 Section 11.2}
 */
export interface Challenge {
  /** The auth-scheme; lowercase when returned by {@link parseWwwAuthenticate}. */
  scheme: string;
  /** The auth-params, names lowercase when parsed, values unquoted and unescaped. */
  params: Record<string, string>;
  /** The token68, for schemes that use one instead of auth-params. */
  token68?: string;
}

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/u;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/u;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/u;
const TOKEN68_AT = /[A-Za-z0-9\-._~+/]+=*/uy;

function isOws(char: string | undefined): boolean {
  return char === ' ' || char === '\t';
}

function skipOws(s: string, i: number): number {
  while (isOws(s[i])) i += 1;
  return i;
}

/** The end of the token starting at `i`, or `i` when there is none. */
function tokenEnd(s: string, i: number): number {
  while (i < s.length && TCHAR.test(s[i] as string)) i += 1;
  return i;
}

// RFC 9110 Section 5.6.4: qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text;
// quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text ). obs-text is taken as any code point from %x80 on.
function isQuotedChar(char: string): boolean {
  const code = char.charCodeAt(0);
  return code === 0x09 || (code >= 0x20 && code !== 0x7f);
}

/** Parses the quoted-string starting at `i` (on its `"`): its unescaped value and the index after it. */
function readQuotedString(s: string, i: number): { value: string; end: number } | undefined {
  let value = '';
  let j = i + 1;
  while (j < s.length) {
    const char = s[j] as string;
    if (char === '"') return { value, end: j + 1 };
    if (char === '\\') {
      const escaped = s[j + 1];
      if (escaped === undefined || !isQuotedChar(escaped)) return undefined;
      value += escaped;
      j += 2;
    } else if (isQuotedChar(char)) {
      value += char;
      j += 1;
    } else {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Parses `token BWS "=" BWS ( token / quoted-string )` at `i`, which must be followed by OWS and then a comma or
 * the end. Returns the lowercase name, the value and the index of that comma (or the end).
 */
function readAuthParam(s: string, i: number): { name: string; value: string; end: number } | undefined {
  const nameEnd = tokenEnd(s, i);
  if (nameEnd === i) return undefined;
  let j = skipOws(s, nameEnd);
  if (s[j] !== '=') return undefined;
  j = skipOws(s, j + 1);
  let value: string;
  if (s[j] === '"') {
    const quoted = readQuotedString(s, j);
    if (quoted === undefined) return undefined;
    value = quoted.value;
    j = quoted.end;
  } else {
    const valueEnd = tokenEnd(s, j);
    if (valueEnd === j) return undefined;
    value = s.slice(j, valueEnd);
    j = valueEnd;
  }
  j = skipOws(s, j);
  if (j < s.length && s[j] !== ',') return undefined;
  return { name: s.slice(i, nameEnd).toLowerCase(), value, end: j };
}

/** Parses a token68 at `i` that is followed by OWS and then a comma or the end; returns it and that index. */
function readToken68(s: string, i: number): { value: string; end: number } | undefined {
  TOKEN68_AT.lastIndex = i;
  const match = TOKEN68_AT.exec(s);
  if (match === null) return undefined;
  const end = skipOws(s, i + match[0].length);
  if (end < s.length && s[end] !== ',') return undefined;
  return { value: match[0], end };
}

/** The index of the next list comma at or after `i` (commas inside quoted strings do not count), or the end. */
function nextComma(s: string, i: number): number {
  let j = i;
  while (j < s.length && s[j] !== ',') {
    if (s[j] === '"') {
      j += 1;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
    }
    j += 1;
  }
  return Math.min(j, s.length);
}

interface PendingChallenge {
  challenge: Challenge;
  /** `params`: auth-params may follow; `token68`: nothing may follow; `invalid`: dropped at the end. */
  state: 'params' | 'token68' | 'invalid';
}

function addParam(pending: PendingChallenge, name: string, value: string): void {
  if (Object.hasOwn(pending.challenge.params, name)) {
    pending.state = 'invalid';
    return;
  }
  // defineProperty: a parameter named `__proto__` stays an ordinary own property.
  Object.defineProperty(pending.challenge.params, name, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * Parses a `WWW-Authenticate` field value into its challenges, in order.
 *
 * Scheme and parameter names come back lowercase; parameter values are unquoted and unescaped. Never throws:
 * anything that does not follow the grammar is skipped, a challenge with an unparseable part or a repeated
 * parameter is dropped whole, and a non-string input gives `[]`.
 *
 * @example
 * ```ts
 * parseWwwAuthenticate('Bearer realm="mcp", scope="files:read", Basic realm="legacy"');
 * // [{ scheme: 'bearer', params: { realm: 'mcp', scope: 'files:read' } },
 * //  { scheme: 'basic', params: { realm: 'legacy' } }]
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1 RFC 9110 Section 11.6.1}
 * @see {@link https://www.rfc-editor.org/rfc/rfc9110#section-11.2 RFC 9110 Section 11.2}
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3 RFC 6750 Section 3}
 */
export function parseWwwAuthenticate(header: string): Challenge[] {
  if (typeof header !== 'string') return [];
  const s = header;
  const challenges: Challenge[] = [];
  let pending: PendingChallenge | undefined;
  const commit = (): void => {
    if (pending !== undefined && pending.state !== 'invalid') challenges.push(pending.challenge);
    pending = undefined;
  };
  const invalidateAndSkip = (from: number): number => {
    if (pending !== undefined) pending.state = 'invalid';
    return nextComma(s, from);
  };

  let i = 0;
  while (true) {
    i = skipOws(s, i);
    if (i >= s.length) break;
    if (s[i] === ',') {
      i += 1;
      continue;
    }

    // A list element is either one more auth-param of the current challenge or the start of a new challenge.
    const param = readAuthParam(s, i);
    if (param !== undefined) {
      // A parameter with no challenge to belong to (at the start, or after a token68) is skipped.
      if (pending?.state === 'params') addParam(pending, param.name, param.value);
      i = param.end;
      continue;
    }

    const schemeEnd = tokenEnd(s, i);
    // No token, or `name =` without a usable value: a broken part of the current challenge, not a new one.
    if (schemeEnd === i || s[skipOws(s, schemeEnd)] === '=') {
      i = invalidateAndSkip(i);
      continue;
    }
    commit();
    pending = { challenge: { scheme: s.slice(i, schemeEnd).toLowerCase(), params: {} }, state: 'params' };
    i = schemeEnd;
    if (i >= s.length || s[i] === ',') continue;
    if (!isOws(s[i])) {
      i = invalidateAndSkip(i);
      continue;
    }
    i = skipOws(s, i);
    if (i >= s.length || s[i] === ',') continue;

    const token68 = readToken68(s, i);
    if (token68 !== undefined) {
      pending.challenge.token68 = token68.value;
      pending.state = 'token68';
      i = token68.end;
      continue;
    }
    const first = readAuthParam(s, i);
    if (first === undefined) {
      i = invalidateAndSkip(i);
      continue;
    }
    addParam(pending, first.name, first.value);
    i = first.end;
  }
  commit();
  return challenges;
}

// What a formatted value may contain: SP and VCHAR. Everything else is a control character (CR, LF, HTAB, DEL,
// C1) or a code point Node's HTTP stack refuses in a field value.
const FORMATTABLE_VALUE = /^[\x20-\x7E]*$/u;

/**
 * Writes one challenge as a `WWW-Authenticate` field value: the scheme as given, then either the token68 or every
 * parameter as `name="value"` (quotes and backslashes escaped), separated by `, `. Join several formatted
 * challenges with `, ` to send them in one field.
 *
 * Throws `TypeError` when the result would not be a well-formed or safe field value: a scheme or parameter name
 * that is not a token, a token68 that is not one, both a token68 and parameters, two parameter names equal
 * case-insensitively, or a value containing CR, LF or any other control character (or a character outside ASCII).
 *
 * @example
 * ```ts
 * formatWwwAuthenticate({ scheme: 'Bearer', params: { error: 'insufficient_scope', scope: 'files:write' } });
 * // 'Bearer error="insufficient_scope", scope="files:write"'
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1 RFC 9110 Section 11.6.1}
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3 RFC 6750 Section 3}
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-5.1 RFC 9728 Section 5.1}
 */
export function formatWwwAuthenticate(challenge: Challenge): string {
  const { scheme, params, token68 } = challenge;
  if (typeof scheme !== 'string' || !TOKEN.test(scheme)) {
    throw new TypeError('WWW-Authenticate scheme must be a token');
  }
  const entries = Object.entries(params ?? {});
  if (token68 !== undefined) {
    if (typeof token68 !== 'string' || !TOKEN68.test(token68)) {
      throw new TypeError('WWW-Authenticate token68 is not a valid token68');
    }
    if (entries.length > 0)
      throw new TypeError('a WWW-Authenticate challenge has either token68 or parameters');
    return `${scheme} ${token68}`;
  }
  if (entries.length === 0) return scheme;

  const seen = new Set<string>();
  const formatted = entries.map(([name, value]) => {
    if (!TOKEN.test(name))
      throw new TypeError(`WWW-Authenticate parameter name ${JSON.stringify(name)} is not a token`);
    const lower = name.toLowerCase();
    if (seen.has(lower)) throw new TypeError(`WWW-Authenticate parameter ${lower} appears twice`);
    seen.add(lower);
    if (typeof value !== 'string' || !FORMATTABLE_VALUE.test(value)) {
      throw new TypeError(
        `WWW-Authenticate parameter ${lower} must be a string without CR, LF or other control characters`,
      );
    }
    return `${name}="${value.replace(/["\\]/gu, '\\$&')}"`;
  });
  return `${scheme} ${formatted.join(', ')}`;
}
