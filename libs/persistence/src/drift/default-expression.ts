/**
 * Column defaults are compared by meaning, not by spelling: PostgreSQL stores `DEFAULT 'none'` as
 * `'none'::text`, `ARRAY['code']::TEXT[]` as `ARRAY['code'::text]`, `-1` as `'-1'::integer`, a jsonb literal
 * re-serialised and a timestamp in the session's time zone, while Prisma's schema says `"none"`, `["code"]`,
 * `-1` and an ISO instant. Both sides are brought to one canonical form before they are compared.
 */

/** String literals and quoted identifiers, the parts of an expression whose text must be kept as it is. */
const QUOTED = /'(?:[^']|'')*'|"(?:[^"]|"")*"/g;

/** A `::type` cast, possibly schema-qualified, with modifiers, time zone words and array brackets. */
const CAST =
  /::\s*(?:(?:"(?:[^"]|"")*"|[a-z_]\w*)\s*\.\s*)?(?:"(?:[^"]|"")*"|[a-z_]\w*(?:\s+(?:varying|precision))?)(?:\s*\(\s*\d+(?:\s*,\s*\d+)?\s*\))?(?:\s+with(?:out)?\s+time\s+zone)?(?:\s*\[\s*\d*\s*\])*/gi;

/** Placeholder for a hidden string literal: U+E000, its index, U+E000 (a private-use character, not SQL). */
const PLACEHOLDER = /\uE000(\d+)\uE000/g;

const NUMBER = /(?<![\w.\uE000])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w.\uE000])/gi;

const WHOLE_NUMBER = /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i;

const NUMERIC_TYPES = /^(smallint|integer|bigint|real|double precision|numeric|money)\b/;

/**
 * The canonical form of a default expression for a column of `type` (as the schema description spells it):
 * casts removed, keywords folded to lower case, white space and redundant parentheses dropped, `now()`
 * read as `CURRENT_TIMESTAMP`, a sequence's `nextval(...)` as `autoincrement()`, and literals in the column's
 * own terms (numbers, JSON values, instants).
 */
export function canonicalDefault(sql: string, type: string): string {
  const literals: string[] = [];
  let text = sql.replace(QUOTED, (token) => {
    if (token.startsWith('"')) return token;
    literals.push(token.slice(1, -1).replaceAll("''", "'"));
    return `\uE000${literals.length - 1}\uE000`;
  });
  text = text.replace(CAST, '');
  text = text.replace(/"(?:[^"]|"")*"|[^"]+/g, (part) =>
    part.startsWith('"') ? part : part.toLowerCase().replace(/\s+/g, ''),
  );
  text = stripOuterParentheses(text)
    .replaceAll('now()', 'current_timestamp')
    .replace(/^nextval\(\uE000\d+\uE000\)$/, 'autoincrement()')
    .replace(NUMBER, canonicalNumber);
  const elementType = type.replace(/(\[\])+$/, '');
  return text.replace(PLACEHOLDER, (_, index: string) =>
    canonicalLiteral(literals[Number(index)] ?? '', elementType),
  );
}

/** Whether two defaults mean the same for a column of `type`; `dbgenerated()` on the schema side matches any. */
export function sameDefault(database: string | null, schema: string | null, type: string): boolean {
  if (database === null || schema === null) return database === schema;
  if (schema === 'dbgenerated()') return true;
  return canonicalDefault(database, type) === canonicalDefault(schema, type);
}

function canonicalLiteral(value: string, type: string): string {
  if (NUMERIC_TYPES.test(type) && WHOLE_NUMBER.test(value.trim())) return canonicalNumber(value.trim());
  if (type === 'json' || type === 'jsonb') {
    try {
      return quote(stableJson(JSON.parse(value)));
    } catch {
      return quote(value);
    }
  }
  if (/^(timestamp|date)\b/.test(type)) {
    const instant = canonicalInstant(value);
    if (instant !== null) return quote(instant);
  }
  return quote(value);
}

function canonicalNumber(text: string): string {
  if (/^-?\d+$/.test(text)) return BigInt(text).toString();
  const value = Number(text);
  return Number.isFinite(value) ? String(value) : text;
}

/** `2020-01-01 00:00:00+00`, `2020-01-01T00:00:00+00:00` and `2020-01-01 00:00:00` (read as UTC) alike. */
function canonicalInstant(text: string): string | null {
  const match =
    /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?\s*(z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(
      text.trim(),
    );
  if (!match) return null;
  const [, date, time = '00:00:00', zone = 'Z'] = match;
  const offset = /^[+-]\d{2}$/.test(zone) ? `${zone}:00` : zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
  const millis = Date.parse(`${date}T${time}${offset.toUpperCase()}`);
  return Number.isNaN(millis) ? null : new Date(millis).toISOString();
}

function stripOuterParentheses(text: string): string {
  let out = text;
  while (out.startsWith('(') && out.endsWith(')') && closingParenthesis(out) === out.length - 1) {
    out = out.slice(1, -1);
  }
  return out;
}

/** Where the parenthesis opening `text` closes (quoted parts are already hidden or hold none). */
function closingParenthesis(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
