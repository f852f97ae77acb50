import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import jsoncParser from 'jsonc-eslint-parser';

/** Modules a framework-free library may never import: no web framework, no ORM, no database driver. */
export const FRAMEWORK_IMPORTS = [
  '@nestjs/*',
  '@prisma/*',
  'prisma',
  'fastify',
  '@fastify/*',
  'express',
  'pg',
  '@electric-sql/*',
  'pglite-prisma-adapter',
  'nestjs-pino',
  'passport',
  'passport-*',
];

export default [
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/.nx/**',
      '**/.data/**',
      '**/.cache/**',
      '**/coverage/**',
      'libs/persistence/src/generated/**',
    ],
  },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...nx.configs['flat/javascript'],
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            {
              sourceTag: 'type:app',
              onlyDependOnLibsWithTags: ['type:nest', 'type:framework-free', 'type:testing'],
            },
            {
              sourceTag: 'type:testing',
              onlyDependOnLibsWithTags: ['type:testing', 'type:nest', 'type:framework-free'],
            },
            {
              sourceTag: 'type:nest',
              onlyDependOnLibsWithTags: ['type:nest', 'type:framework-free', 'type:testing'],
            },
            {
              sourceTag: 'type:framework-free',
              onlyDependOnLibsWithTags: ['type:framework-free'],
              bannedExternalImports: FRAMEWORK_IMPORTS,
            },
            {
              sourceTag: 'type:tool',
              onlyDependOnLibsWithTags: ['type:nest', 'type:framework-free', 'type:testing'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The resource server's framework-free core: all of libs/resource-server/src but its adapters (`nest/`,
    // `express/`, published as the subpaths `/nest` and `/express`). It imports no framework and no adapter, so a
    // server on any framework (or none) installs it without NestJS, Fastify or Express.
    files: ['libs/resource-server/src/**/*.ts'],
    ignores: ['libs/resource-server/src/nest/**', 'libs/resource-server/src/express/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: FRAMEWORK_IMPORTS, message: 'The resource server core is framework-free.' },
            {
              group: ['**/nest/**', '**/express/**', '@portcullis/resource-server/*'],
              message: 'The resource server core never imports one of its adapters.',
            },
          ],
        },
      ],
    },
  },
  {
    // A lib's package.json declares every package its production sources import (the files of its `build` target's
    // inputs, so no spec or test file), at a range containing the installed version: its tarball installs alone.
    files: ['libs/*/package.json'],
    languageOptions: { parser: jsoncParser },
    rules: { '@nx/dependency-checks': 'error' },
  },
  {
    // Tests assert on values they just arranged; a non-null assertion there is the clearest spelling.
    files: ['**/*.spec.ts', '**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  prettier,
];
