// The rule every migration keeps (expand, deploy, contract): during a rolling upgrade the first new instance applies
// the new release's migrations while the previous release's instances still serve, so a migration may only add what
// those instances ignore (tables, nullable columns or columns with a default, indexes that constrain nothing) and
// relax what they rely on (DROP NOT NULL). A statement that takes away or tightens what the previous release reads or
// writes (a contract statement) ships only as an explicit contract migration, a release after the code stopped
// using it. This module finds contract statements in a migration's SQL and checks the shipped migrations against
// the previous release's; PostgreSQL's grammar: https://www.postgresql.org/docs/15/sql-altertable.html
import { join } from 'node:path';
import { readdir } from 'node:fs/promises';
import { MIGRATIONS_DIR, readMigrationFolder, type MigrationFile } from './migrations.js';

/** A statement that would break the previous release's apps, and what it takes away from them. */
export interface ContractStatement {
  /** What it does, naming the object: `drops column "upstream_tokens"."provider"`. */
  readonly change: string;
  /** The statement, comments left out and whitespace collapsed (at most 200 characters). */
  readonly statement: string;
}

type Token =
  | { readonly kind: 'word'; readonly text: string; readonly upper: string }
  | { readonly kind: 'ident' | 'string' | 'body' | 'punct'; readonly text: string };

const DOLLAR_TAG = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/;
const WORD = /^[A-Za-z0-9_$]+/;

/**
 * PostgreSQL's lexical structure, as far as finding statements needs: comments (nested block comments too), quoted
 * identifiers, string constants (standard and E''), dollar-quoted bodies, words and single punctuation characters.
 * @see https://www.postgresql.org/docs/15/sql-syntax-lexical.html
 */
function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const char = sql.charAt(i);
    if (/\s/.test(char)) {
      i += 1;
    } else if (sql.startsWith('--', i)) {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
    } else if (sql.startsWith('/*', i)) {
      let depth = 0;
      do {
        if (sql.startsWith('/*', i)) {
          depth += 1;
          i += 2;
        } else if (sql.startsWith('*/', i)) {
          depth -= 1;
          i += 2;
        } else i += 1;
      } while (depth > 0 && i < sql.length);
    } else if (char === "'" || ((char === 'E' || char === 'e') && sql[i + 1] === "'")) {
      const escapes = char !== "'";
      let j = escapes ? i + 2 : i + 1;
      let text = '';
      while (j < sql.length) {
        if (escapes && sql[j] === '\\') {
          text += sql[j + 1] ?? '';
          j += 2;
        } else if (sql[j] === "'" && sql[j + 1] === "'") {
          text += "'";
          j += 2;
        } else if (sql[j] === "'") break;
        else text += sql[j++];
      }
      tokens.push({ kind: 'string', text });
      i = j + 1;
    } else if (char === '"') {
      let j = i + 1;
      let text = '';
      while (j < sql.length) {
        if (sql[j] === '"' && sql[j + 1] === '"') {
          text += '"';
          j += 2;
        } else if (sql[j] === '"') break;
        else text += sql[j++];
      }
      tokens.push({ kind: 'ident', text });
      i = j + 1;
    } else if (char === '$' && DOLLAR_TAG.test(sql.slice(i, i + 64))) {
      const tag = DOLLAR_TAG.exec(sql.slice(i, i + 64))?.[0] ?? '$$';
      const end = sql.indexOf(tag, i + tag.length);
      const close = end === -1 ? sql.length : end;
      tokens.push({ kind: 'body', text: sql.slice(i + tag.length, close) });
      i = close + tag.length;
    } else if (/[A-Za-z0-9_]/.test(char)) {
      const text = WORD.exec(sql.slice(i))?.[0] ?? char;
      tokens.push({ kind: 'word', text, upper: text.toUpperCase() });
      i += text.length;
    } else {
      tokens.push({ kind: 'punct', text: char });
      i += 1;
    }
  }
  return tokens;
}

function split(tokens: readonly Token[], separator: string): Token[][] {
  const parts: Token[][] = [[]];
  let depth = 0;
  for (const token of tokens) {
    if (token.kind === 'punct' && token.text === '(') depth += 1;
    if (token.kind === 'punct' && token.text === ')') depth -= 1;
    if (token.kind === 'punct' && token.text === separator && depth === 0) parts.push([]);
    else parts[parts.length - 1]?.push(token);
  }
  return parts.filter((part) => part.length > 0);
}

const show = (tokens: readonly Token[]): string => {
  const text = tokens
    .map((token) =>
      token.kind === 'ident'
        ? `"${token.text}"`
        : token.kind === 'string'
          ? `'${token.text}'`
          : token.kind === 'body'
            ? '$$…$$'
            : token.text,
    )
    .join(' ');
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
};

/** Reads statements word by word: keywords case-insensitively, names as PostgreSQL folds them. */
class Cursor {
  #at = 0;
  constructor(readonly tokens: readonly Token[]) {}

  peek(offset = 0): string | undefined {
    const token = this.tokens[this.#at + offset];
    return token?.kind === 'word' ? token.upper : undefined;
  }

  /** Consumes the words given, in order, if they come next. */
  accept(...words: string[]): boolean {
    if (!words.every((word, offset) => this.peek(offset) === word)) return false;
    this.#at += words.length;
    return true;
  }

  /**
   * A possibly schema-qualified name; its last part, quoted for display. A name made at run time (`format('DROP
   * TABLE %I', t)`) is shown as written.
   */
  name(): string {
    let last: string | undefined;
    for (;;) {
      const token = this.tokens[this.#at];
      if (token?.kind === 'ident') last = token.text;
      else if (token?.kind === 'word') last = token.text.toLowerCase();
      else if (last !== undefined) return `"${last}"`;
      else if (token === undefined) return '(unnamed)';
      else return `${token.text}${this.tokens[this.#at + 1]?.text ?? ''}`;
      this.#at += 1;
      const dot = this.tokens[this.#at];
      if (!(dot?.kind === 'punct' && dot.text === '.')) return `"${last}"`;
      this.#at += 1;
    }
  }

  /** Moves past the next `word`; false (and nowhere) when none comes. */
  skipPast(word: string): boolean {
    const index = this.tokens.findIndex(
      (token, i) => i >= this.#at && token.kind === 'word' && token.upper === word,
    );
    if (index === -1) return false;
    this.#at = index + 1;
    return true;
  }

  has(...words: string[]): boolean {
    for (let i = this.#at; i < this.tokens.length; i++) {
      if (
        words.every((word, offset) => {
          const token = this.tokens[i + offset];
          return token?.kind === 'word' && token.upper === word;
        })
      )
        return true;
    }
    return false;
  }

  rest(): Token[] {
    return this.tokens.slice(this.#at);
  }
}

const CONSTRAINT_STARTS = new Set(['CONSTRAINT', 'PRIMARY', 'UNIQUE', 'CHECK', 'FOREIGN', 'EXCLUDE']);

/** What one ALTER TABLE action takes from the previous release, if anything. */
function alterTableAction(table: string, action: readonly Token[]): string | undefined {
  const at = new Cursor(action);
  if (at.accept('RENAME')) {
    if (at.accept('TO')) return `renames table ${table} to ${at.name()}`;
    if (at.accept('CONSTRAINT')) return `renames constraint ${at.name()} of ${table}`;
    at.accept('COLUMN');
    return `renames column ${table}.${at.name()}`;
  }
  if (at.accept('DROP')) {
    if (at.accept('CONSTRAINT')) {
      at.accept('IF', 'EXISTS');
      return `drops constraint ${at.name()} of ${table}`;
    }
    at.accept('COLUMN');
    at.accept('IF', 'EXISTS');
    return `drops column ${table}.${at.name()}`;
  }
  if (at.accept('ALTER')) {
    at.accept('COLUMN');
    const column = `${table}.${at.name()}`;
    if (at.accept('TYPE') || at.accept('SET', 'DATA', 'TYPE')) return `changes the type of ${column}`;
    if (at.accept('SET', 'NOT', 'NULL')) return `makes ${column} NOT NULL`;
    if (at.accept('DROP', 'DEFAULT')) return `drops the default of ${column}`;
    return undefined;
  }
  if (at.accept('ADD')) {
    if (CONSTRAINT_STARTS.has(at.peek() ?? ''))
      return `adds a constraint to ${table}, which the previous release writes`;
    at.accept('COLUMN');
    at.accept('IF', 'NOT', 'EXISTS');
    const column = `${table}.${at.name()}`;
    if (at.has('NOT', 'NULL') && !at.has('DEFAULT') && !at.has('GENERATED')) {
      return `adds ${column} NOT NULL without a default (the previous release inserts rows without it)`;
    }
  }
  return undefined;
}

/** The contract statements of one statement's tokens; `created` holds the tables this migration created so far. */
function statementChanges(tokens: readonly Token[], created: Set<string>): string[] {
  const at = new Cursor(tokens);
  if (at.accept('CREATE')) {
    at.accept('OR', 'REPLACE');
    if (!at.accept('TEMPORARY') && !at.accept('TEMP')) at.accept('UNLOGGED');
    if (at.accept('TABLE')) {
      at.accept('IF', 'NOT', 'EXISTS');
      created.add(at.name());
      return [];
    }
    if (at.accept('UNIQUE', 'INDEX')) {
      if (!at.skipPast('ON')) return [];
      at.accept('ONLY');
      const table = at.name();
      return created.has(table) ? [] : [`adds a unique index to ${table}, which the previous release writes`];
    }
    return [];
  }
  if (at.accept('DROP')) {
    const kind = at.accept('MATERIALIZED', 'VIEW') ? 'materialized view' : (at.peek() ?? '').toLowerCase();
    if (kind !== 'materialized view') at.accept(at.peek() ?? '');
    at.accept('CONCURRENTLY');
    at.accept('IF', 'EXISTS');
    const name = at.name();
    return created.has(name) ? [] : [`drops ${kind} ${name}`];
  }
  if (at.accept('TRUNCATE')) {
    at.accept('TABLE');
    at.accept('ONLY');
    return [`empties table ${at.name()}`];
  }
  if (at.accept('ALTER')) {
    if (at.accept('TABLE')) {
      at.accept('IF', 'EXISTS');
      at.accept('ONLY');
      const table = at.name();
      if (created.has(table)) return [];
      return split(at.rest(), ',').flatMap((action) => alterTableAction(table, action) ?? []);
    }
    const kind = (at.peek() ?? '').toLowerCase();
    if (at.has('RENAME')) return [`renames a ${kind}`];
    if (kind === 'type' && at.has('DROP')) return [`drops from a type`];
  }
  return [];
}

const STATEMENT_WORDS = new Set(['ALTER', 'CREATE', 'DROP', 'TRUNCATE']);

/**
 * The statements of a procedural body (a DO block, a function): its string constants read as SQL too (what it
 * EXECUTEs), each statement from its first DDL word on (`IF ... THEN EXECUTE format('DROP TABLE %I', t)`).
 */
function bodyStatements(body: string): Token[][] {
  const flattened = tokenize(body).flatMap((token) =>
    token.kind === 'string' ? tokenize(token.text) : [token],
  );
  return split(flattened, ';').flatMap((statement) => {
    const start = statement.findIndex((token) => token.kind === 'word' && STATEMENT_WORDS.has(token.upper));
    return start === -1 ? [] : [statement.slice(start)];
  });
}

/**
 * The statements of a migration that would break the previous release's apps while they still run on the migrated
 * schema: dropping or renaming anything, changing a column's type, SET NOT NULL, dropping a default, a NOT NULL column
 * added without a default, a constraint or unique index added to an existing table, TRUNCATE; in procedural bodies
 * (DO blocks) as well. Statements on tables the migration itself creates take nothing from the previous release.
 */
export function contractStatements(script: string): ContractStatement[] {
  const created = new Set<string>();
  const found: ContractStatement[] = [];
  for (const statement of split(tokenize(script), ';')) {
    for (const change of statementChanges(statement, created)) {
      found.push({ change, statement: show(statement) });
    }
    for (const token of statement) {
      if (token.kind !== 'body') continue;
      for (const inner of bodyStatements(token.text)) {
        for (const change of statementChanges(inner, created)) {
          found.push({ change: `${change} (in a procedural body)`, statement: show(inner) });
        }
      }
    }
  }
  return found;
}

/** The previous release, as docker/upgrade/previous-release.json records it. */
export interface ReleaseRecord {
  readonly version: string;
  readonly commit: string;
  /** Each migration it shipped, by path under prisma/migrations (`upstream/<name>`), with its SHA-256. */
  readonly migrations: Readonly<Record<string, string>>;
}

/** A migration that contracts on purpose, as libs/persistence/prisma/contract-migrations.json lists it. */
export interface ContractMigration {
  /** Its path under prisma/migrations (`upstream/<name>`). */
  readonly migration: string;
  /** What it takes away and why nothing running uses it any longer. */
  readonly reason: string;
  /** The release whose code stopped using what it takes away: the previous release, or an earlier one. */
  readonly codeStoppedUsingIn: string;
}

/** Every shipped migration, by path under prisma/migrations: `<set>/<name>` and `own/<app>/<name>`. */
export async function readMigrationPaths(dir = MIGRATIONS_DIR): Promise<Map<string, MigrationFile>> {
  const folders: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    if (entry.name !== 'own') folders.push(entry.name);
    else {
      for (const app of await readdir(join(dir, 'own'), { withFileTypes: true })) {
        if (app.isDirectory()) folders.push(join('own', app.name));
      }
    }
  }
  const paths = new Map<string, MigrationFile>();
  for (const folder of folders.sort()) {
    for (const migration of await readMigrationFolder(join(dir, folder))) {
      paths.set(`${folder.split('\\').join('/')}/${migration.name}`, migration);
    }
  }
  return paths;
}

function compareVersions(a: string, b: string): number {
  const parts = (version: string) => version.split(/[.+-]/).slice(0, 3).map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/**
 * What breaks the rule, one sentence each (none when the shipped migrations keep it): a migration the previous
 * release shipped that is gone or changed (a database of that release applied it: the apps would refuse to boot on
 * it), a newer migration with a contract statement that is not an explicit contract migration, and a contract
 * migration whose entry does not say (or cannot say) that the previous release no longer uses what it takes away.
 */
export function migrationRuleProblems(
  release: ReleaseRecord,
  shipped: ReadonlyMap<string, MigrationFile>,
  contracts: readonly ContractMigration[],
): string[] {
  const problems: string[] = [];
  for (const [path, checksum] of Object.entries(release.migrations)) {
    const migration = shipped.get(path);
    if (!migration) problems.push(`${path}: shipped in ${release.version}, and no longer shipped`);
    else if (migration.checksum !== checksum) {
      problems.push(
        `${path}: shipped in ${release.version}, and changed since (add a new migration instead)`,
      );
    }
  }
  const listed = new Map(contracts.map((contract) => [contract.migration, contract]));
  for (const [path, migration] of shipped) {
    if (path in release.migrations) continue;
    const found = contractStatements(migration.script);
    if (found.length === 0 || listed.has(path)) continue;
    problems.push(
      `${path}: newer than ${release.version}, whose apps still run on it during a rolling upgrade, and it ` +
        `${found.map(({ change }) => change).join('; ')}; expand instead, or list it as a contract migration once ` +
        `a release no longer uses what it takes away`,
    );
  }
  for (const contract of contracts) {
    if (!shipped.has(contract.migration)) {
      problems.push(`contract migration ${contract.migration}: no such migration`);
      continue;
    }
    if (contract.reason.trim().length < 10)
      problems.push(`contract migration ${contract.migration}: no reason`);
    if (!/^\d+\.\d+\.\d+/.test(contract.codeStoppedUsingIn)) {
      problems.push(`contract migration ${contract.migration}: codeStoppedUsingIn is not a version`);
    } else if (compareVersions(contract.codeStoppedUsingIn, release.version) > 0) {
      problems.push(
        `contract migration ${contract.migration}: the code stopped using what it takes away in ` +
          `${contract.codeStoppedUsingIn}, after ${release.version}, whose apps still run on it during a rolling ` +
          `upgrade; ship it in the release after ${contract.codeStoppedUsingIn}`,
      );
    }
  }
  return problems;
}
