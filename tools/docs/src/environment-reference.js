// @ts-check
// The reference table of every environment variable the apps read (docs/reference/environment.md), made from the
// apps' own configuration schemas: which app reads a variable and its default come from the zod schema each app
// parses at boot (its `env.schema.ts`), so the table cannot say what the code does not; what a variable means comes
// from the schema's `.describe()`/`.meta()` where it has one, else from ENVIRONMENT_DESCRIPTIONS beside this file.
import { ENVIRONMENT_DESCRIPTIONS } from './environment-descriptions.js';

/** The apps whose `env.schema.ts` the reference is made from, by folder under `apps/`. */
export const APPS = /** @type {const} */ (['authorization-server', 'protected-server', 'proxy']);

/** @typedef {(typeof APPS)[number]} App */

/** How the table names each app. */
const APP_NAMES = /** @type {const} */ ({
  'authorization-server': 'authorization server',
  'protected-server': 'protected server',
  proxy: 'proxy',
});

/** Where the reference lives, from the workspace root. */
export const REFERENCE_PATH = 'docs/reference/environment.md';

/**
 * A zod schema, read through its definition (zod 4's `def`): enough of it to find an app's variables and their
 * defaults without parsing anything.
 *
 * @typedef {{ def: Record<string, any>, description?: string, meta?: () => unknown }} Schema
 */

/**
 * The fields of an app's configuration schema. Each app's `envSchema` is an object (`baseEnvSchema(...).extend(...)`)
 * followed by refinements, which leave it an object, and transforms, which wrap it in pipes: the variables are the
 * shape of the object at the start of the pipes.
 *
 * @param {Schema} schema
 * @returns {Record<string, Schema>}
 */
export function environmentShape(schema) {
  let current = schema;
  while (current.def['type'] === 'pipe') current = current.def['in'];
  if (current.def['type'] !== 'object') {
    throw new Error(`expected an object schema at the start of the pipes, found ${current.def['type']}`);
  }
  return current.def['shape'];
}

/**
 * The default a field's schema applies to an unset variable, as zod's definition holds it: the value of the first
 * `.default()` on the way in (through `z.preprocess`, `.optional()` and transforms), or `undefined` when the schema
 * has none (the app decides elsewhere, or the variable stays unset).
 *
 * @param {Schema} field
 * @returns {{ value: unknown } | undefined}
 */
export function schemaDefault(field) {
  const def = field.def;
  switch (def['type']) {
    case 'default':
    case 'prefault':
      return { value: def['defaultValue'] };
    case 'optional':
    case 'nullable':
    case 'readonly':
    case 'catch':
      return schemaDefault(def['innerType']);
    case 'pipe':
      // z.preprocess(fn, schema) is a pipe from a transform: the value reaches the schema after it.
      return def['in'].def['type'] === 'transform' ? schemaDefault(def['out']) : schemaDefault(def['in']);
    default:
      return undefined;
  }
}

/**
 * What the schema itself says a field means (`.describe()`, or `.meta({ description })`), on the field or on what it
 * wraps.
 *
 * @param {Schema} field
 * @returns {string | undefined}
 */
export function schemaDescription(field) {
  const meta = /** @type {{ description?: unknown } | undefined} */ (field.meta?.());
  const own = field.description ?? (typeof meta?.description === 'string' ? meta.description : undefined);
  if (own) return own;
  const def = field.def;
  if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch'].includes(def['type'])) {
    return schemaDescription(def['innerType']);
  }
  if (def['type'] === 'pipe') {
    return schemaDescription(def['in'].def['type'] === 'transform' ? def['out'] : def['in']);
  }
  return undefined;
}

/**
 * One variable of the reference: the apps that read it, its default in each, what it means.
 *
 * @typedef {{
 *   name: string,
 *   apps: App[],
 *   defaults: Map<App, { value: unknown } | undefined>,
 *   meanings: Map<App, string | undefined>,
 *   documentedDefault?: string,
 *   seconds: boolean,
 * }} Variable
 */

/**
 * Every variable of the apps' schemas, by name, with what the schemas and the descriptions say of it.
 *
 * @param {Readonly<Record<App, Schema>>} schemas each app's `envSchema`
 * @param {typeof ENVIRONMENT_DESCRIPTIONS} descriptions
 * @returns {Variable[]}
 */
export function collectVariables(schemas, descriptions = ENVIRONMENT_DESCRIPTIONS) {
  /** @type {Map<string, Variable>} */
  const variables = new Map();
  for (const app of APPS) {
    for (const [name, field] of Object.entries(environmentShape(schemas[app]))) {
      const described = descriptions[name];
      /** @type {Variable} */
      const variable = variables.get(name) ?? {
        name,
        apps: [],
        defaults: new Map(),
        meanings: new Map(),
        ...(described?.default !== undefined ? { documentedDefault: described.default } : {}),
        seconds: described?.seconds === true,
      };
      variable.apps.push(app);
      variable.defaults.set(app, schemaDefault(field));
      const meaning = described?.meaning;
      variable.meanings.set(
        app,
        schemaDescription(field) ?? (typeof meaning === 'string' ? meaning : meaning?.[app]),
      );
      variables.set(name, variable);
    }
  }
  // By code point, not by locale: the order must not depend on the ICU a Node version ships.
  return [...variables.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * What is wrong with the descriptions for these variables: a variable (or an app reading it) with no meaning, a
 * documented default where a schema has one, a description of a variable no app reads. Empty when nothing is.
 *
 * @param {Variable[]} variables
 * @param {typeof ENVIRONMENT_DESCRIPTIONS} descriptions
 * @returns {string[]}
 */
export function descriptionProblems(variables, descriptions = ENVIRONMENT_DESCRIPTIONS) {
  const problems = [];
  for (const variable of variables) {
    const missing = variable.apps.filter((app) => !variable.meanings.get(app));
    if (missing.length > 0) {
      problems.push(
        `${variable.name} has no meaning for ${missing.join(', ')}: describe it in the schema or in ENVIRONMENT_DESCRIPTIONS`,
      );
    }
    const withSchemaDefault = variable.apps.filter((app) => variable.defaults.get(app) !== undefined);
    if (variable.documentedDefault !== undefined && withSchemaDefault.length > 0) {
      problems.push(
        `${variable.name} has a default in the schema of ${withSchemaDefault.join(', ')}: remove the documented one`,
      );
    }
  }
  const read = new Set(variables.map((variable) => variable.name));
  for (const name of Object.keys(descriptions)) {
    if (!read.has(name)) problems.push(`${name} is described but no app's schema reads it: remove it`);
  }
  return problems;
}

/**
 * `14 d`, `8 h`, `5 min` for a number of seconds that is a whole number of them.
 *
 * @param {number} seconds
 */
function humanDuration(seconds) {
  for (const [unit, size] of /** @type {const} */ ([
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
  ])) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size} ${unit}`;
  }
  return undefined;
}

/**
 * @param {unknown} value
 * @param {boolean} seconds
 */
function formatValue(value, seconds) {
  if (value === '') return 'empty';
  if (typeof value === 'number' && seconds) {
    const human = humanDuration(value);
    return `\`${value}\` s${human ? ` (${human})` : ''}`;
  }
  return `\`${String(value)}\``;
}

/**
 * The default column: the schemas' defaults (per app where they differ), else the documented one, else unset.
 *
 * @param {Variable} variable
 */
function defaultCell(variable) {
  /** @type {Map<string, App[]>} */
  const byValue = new Map();
  for (const app of variable.apps) {
    const found = variable.defaults.get(app);
    const text = found === undefined ? undefined : formatValue(found.value, variable.seconds);
    const key = text ?? '';
    byValue.set(key, [...(byValue.get(key) ?? []), app]);
  }
  if (byValue.size === 1 && byValue.has('')) return variable.documentedDefault ?? 'unset';
  if (byValue.size === 1) return [...byValue.keys()][0] ?? '';
  return [...byValue]
    .map(([text, apps]) => `${text || 'unset'} (${apps.map((app) => APP_NAMES[app]).join(', ')})`)
    .join('; ');
}

/**
 * The meaning column: one text, or one per group of apps where they differ.
 *
 * @param {Variable} variable
 */
function meaningCell(variable) {
  /** @type {Map<string, App[]>} */
  const byText = new Map();
  for (const app of variable.apps) {
    const text = variable.meanings.get(app) ?? '';
    byText.set(text, [...(byText.get(text) ?? []), app]);
  }
  if (byText.size === 1) return [...byText.keys()][0] ?? '';
  return [...byText]
    .map(([text, apps]) => `_${apps.map((app) => APP_NAMES[app]).join(', ')}_: ${text}`)
    .join('<br>');
}

/** A pipe inside a table cell ends the cell unless escaped (GitHub Flavored Markdown tables, also in code spans). */
const cell = (/** @type {string} */ text) => text.replace(/\|/g, '\\|');

const HEADER = `# Environment variables

<!-- Generated by \`npm run docs:env\` (tools/docs) from each app's env.schema.ts: edit the schemas or
tools/docs/src/environment-descriptions.js, never this file. -->

Every variable the three apps read, from the configuration schema each parses once at boot
(\`apps/<app>/src/env.schema.ts\`): which app reads it, its default (the schema's, or what the app does when it is
unset), and what it means. The enterprise identity provider of the development stack is the authorization server
again, and \`portcullis-admin\` reads the authorization server's variables. A bad value stops the boot with one line
naming the variable; an unknown variable is ignored; an empty one (\`PORT=\`) counts as unset where the schema says
so. With \`NODE_ENV=production\` an app refuses to start on a development default:
[deploying to production](../production.md) lists what each app requires there.

The variables of the tools (the test harness, the benchmarks, the containers) are in [Tests and CI](../testing.md),
[Performance](../performance.md) and [Containers](../containers.md).

`;

/**
 * The reference as Markdown, before formatting.
 *
 * @param {Variable[]} variables
 */
export function renderEnvironmentReference(variables) {
  const rows = variables.map((variable) => {
    const apps =
      variable.apps.length === APPS.length
        ? 'every app'
        : variable.apps.map((app) => APP_NAMES[app]).join(', ');
    return `| \`${variable.name}\` | ${apps} | ${cell(defaultCell(variable))} | ${cell(meaningCell(variable))} |`;
  });
  return `${HEADER}| variable | read by | default | meaning |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n`;
}

/**
 * The reference as the file holds it: rendered, then formatted with the workspace's Prettier configuration, as
 * `npm run format` would.
 *
 * @param {Readonly<Record<App, Schema>>} schemas each app's `envSchema`
 * @param {string} filepath the reference's absolute path (Prettier's configuration is resolved for it)
 */
export async function environmentReference(schemas, filepath) {
  const variables = collectVariables(schemas);
  const problems = descriptionProblems(variables);
  if (problems.length > 0)
    throw new Error(`the environment reference is incomplete:\n${problems.join('\n')}`);
  const prettier = await import('prettier');
  const config = (await prettier.resolveConfig(filepath)) ?? {};
  return prettier.format(renderEnvironmentReference(variables), { ...config, filepath });
}
