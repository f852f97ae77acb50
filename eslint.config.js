import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';

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
    // Tests assert on values they just arranged; a non-null assertion there is the clearest spelling.
    files: ['**/*.spec.ts', '**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  prettier,
];
