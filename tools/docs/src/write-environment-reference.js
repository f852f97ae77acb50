// @ts-check
// `npm run docs:env`: writes docs/reference/environment.md from the built apps' configuration schemas (the npm
// script builds them first). The test beside this file makes the same reference from the sources and fails when the
// file differs.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { APPS, environmentReference, REFERENCE_PATH } from './environment-reference.js';

const root = new URL('../../../', import.meta.url);

const schemas = /** @type {Parameters<typeof environmentReference>[0]} */ (
  Object.fromEntries(
    await Promise.all(
      APPS.map(async (app) => {
        const module = await import(new URL(`apps/${app}/dist/env.schema.js`, root).href);
        return [app, module.envSchema];
      }),
    ),
  )
);
const path = fileURLToPath(new URL(REFERENCE_PATH, root));
await writeFile(path, await environmentReference(schemas, path));
console.log(`wrote ${REFERENCE_PATH}`);
