import { describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import {
  APPS,
  collectVariables,
  descriptionProblems,
  environmentReference,
  environmentShape,
  REFERENCE_PATH,
  renderEnvironmentReference,
  schemaDefault,
} from './environment-reference.js';

const root = new URL('../../../', import.meta.url);

type Schemas = Parameters<typeof environmentReference>[0];
let loaded: Promise<Schemas> | undefined;

/**
 * Each app's configuration schema, from its sources (the apps are no library: imported by path, not by name), one
 * after the other: Jest's ESM loader links a module graph imported twice at once only once.
 */
function appSchemas(): Promise<Schemas> {
  loaded ??= (async () => {
    const schemas: Partial<Record<(typeof APPS)[number], unknown>> = {};
    for (const app of APPS) {
      const path = fileURLToPath(new URL(`apps/${app}/src/env.schema.ts`, root));
      schemas[app] = ((await import(path)) as { envSchema: unknown }).envSchema;
    }
    return schemas as Schemas;
  })();
  return loaded;
}

/** The first line where two texts differ, to say where a stale reference is stale. */
function firstDifference(actual: string, expected: string): string {
  // Table cells are padded to their column's width: one space stands for many in the message.
  const a = actual.split('\n').map((line) => line.replace(/ {2,}/g, ' '));
  const b = expected.split('\n').map((line) => line.replace(/ {2,}/g, ' '));
  const index = b.findIndex((line, i) => line !== a[i]);
  const at = index === -1 ? b.length : index;
  return `line ${at + 1}: the file has ${JSON.stringify(a[at] ?? '(end of file)')}, the schemas make ${JSON.stringify(b[at] ?? '(end of file)')}`;
}

describe('docs/reference/environment.md', () => {
  it('is what the apps’ env schemas make (else: run npm run docs:env)', async () => {
    const path = fileURLToPath(new URL(REFERENCE_PATH, root));
    const expected = await environmentReference(await appSchemas(), path);
    const actual = await readFile(path, 'utf8').catch(() => '');
    if (actual !== expected) {
      throw new Error(
        `${REFERENCE_PATH} differs from what the env schemas make (${firstDifference(actual, expected)}): run npm run docs:env`,
      );
    }
  }, 120_000);

  it('gives every variable every app reads a meaning, and describes no variable that none reads', async () => {
    const variables = collectVariables(await appSchemas());
    expect(descriptionProblems(variables)).toEqual([]);
    // The reference covers each app's schema whole: the variables every app shares and each app's own.
    const names = new Set(variables.map((variable) => variable.name));
    for (const expected of [
      'DATABASE_URL',
      'ISSUER',
      'RESOURCE_URI',
      'UPSTREAM_PROVIDER',
      'KEY_ENCRYPTION_KEY',
    ]) {
      expect(names.has(expected)).toBe(true);
    }
  }, 120_000);
});

describe('the environment reference generator', () => {
  const base = z.object({
    PORT: z.preprocess((value) => (value === '' ? undefined : value), z.coerce.number().default(4000)),
    ISSUER: z.string().default('http://localhost:4000'),
    COOKIE_SECRET: z.string().min(32).optional(),
    SESSION_TTL: z.coerce.number().default(8 * 3600),
    LIST: z
      .string()
      .default('')
      .transform((text) => text.split(',')),
  });

  it('reads the object under the refinements and transforms, and each default through preprocess and pipes', () => {
    const schema = base
      .superRefine(() => undefined)
      .transform((env) => ({ ...env, EXTRA: 1 }))
      .transform((env) => env);
    const shape = environmentShape(schema);
    expect(Object.keys(shape)).toEqual(['PORT', 'ISSUER', 'COOKIE_SECRET', 'SESSION_TTL', 'LIST']);
    expect(schemaDefault(shape['PORT']!)).toEqual({ value: 4000 });
    expect(schemaDefault(shape['LIST']!)).toEqual({ value: '' });
    expect(schemaDefault(shape['COOKIE_SECRET']!)).toBeUndefined();
  });

  it('reports a variable without a meaning, naming it and the app, and a description of a variable nobody reads', () => {
    const schemas = {
      'authorization-server': base.extend({ NOT_DESCRIBED: z.string().optional() }),
      'protected-server': base,
      proxy: base,
    };
    const variables = collectVariables(schemas, {
      PORT: { meaning: 'port' },
      ISSUER: { meaning: { 'authorization-server': 'the issuer', proxy: 'the issuer' } },
      COOKIE_SECRET: { meaning: 'signs cookies', default: 'random' },
      SESSION_TTL: { meaning: 'session', seconds: true, default: 'eight hours' },
      LIST: { meaning: 'a list' },
      GONE: { meaning: 'read by nobody' },
    });
    expect(
      descriptionProblems(variables, {
        PORT: { meaning: 'port' },
        SESSION_TTL: { meaning: 'session', default: 'eight hours' },
        GONE: { meaning: 'read by nobody' },
      }),
    ).toEqual([
      'ISSUER has no meaning for protected-server: describe it in the schema or in ENVIRONMENT_DESCRIPTIONS',
      'NOT_DESCRIBED has no meaning for authorization-server: describe it in the schema or in ENVIRONMENT_DESCRIPTIONS',
      'SESSION_TTL has a default in the schema of authorization-server, protected-server, proxy: remove the documented one',
      "GONE is described but no app's schema reads it: remove it",
    ]);
  });

  it('takes a meaning from the schema itself, and renders per-app defaults, durations and documented defaults', () => {
    const schemas = {
      'authorization-server': base.extend({
        DESCRIBED: z.string().optional().describe('said by the schema'),
      }),
      'protected-server': base.extend({ PORT: z.coerce.number().default(4100) }),
      proxy: base,
    };
    const variables = collectVariables(schemas, {
      PORT: { meaning: 'port' },
      ISSUER: { meaning: 'the issuer' },
      COOKIE_SECRET: { meaning: 'signs cookies | sessions', default: 'random per process' },
      SESSION_TTL: { meaning: 'session', seconds: true },
      LIST: { meaning: 'a list' },
    });
    expect(descriptionProblems(variables, {})).toEqual([]);
    const table = renderEnvironmentReference(variables);
    expect(table).toContain('| `DESCRIBED` | authorization server | unset | said by the schema |');
    expect(table).toContain(
      '| `PORT` | every app | `4000` (authorization server, proxy); `4100` (protected server) | port |',
    );
    expect(table).toContain('| `SESSION_TTL` | every app | `28800` s (8 h) | session |');
    expect(table).toContain(
      '| `COOKIE_SECRET` | every app | random per process | signs cookies \\| sessions |',
    );
    expect(table).toContain('| `LIST` | every app | empty | a list |');
  });
});
