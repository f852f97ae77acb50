import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';

// The boundary rule of the README's "How it fits together" (the depConstraints of eslint.config.js), proven through
// the same ESLint configuration `nx lint` runs: framework-free libs never import a web framework, an ORM or a
// database driver, nor a NestJS lib.
const root = fileURLToPath(new URL('../../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${filePath}` });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === '@nx/enforce-module-boundaries')
    .map((message) => message.message);
}

describe('module boundaries', () => {
  it.each([
    ['protocol', "import { Injectable } from '@nestjs/common';"],
    ['metadata', "import { PrismaClient } from '@prisma/client';"],
    ['revisions', "import Fastify from 'fastify';"],
    ['extensions', "import pg from 'pg';"],
    ['extension-client-credentials', "import { Injectable } from '@nestjs/common';"],
  ])('fails lint when framework-free %s imports a framework (%s)', async (lib, code) => {
    const errors = await boundaryErrors(
      `libs/${lib}/src/boundary-probe.ts`,
      `${code}\nexport const probe = 1;\n`,
    );
    expect(errors).toHaveLength(1);
    const imported = /from '([^']+)'/.exec(code)![1]!;
    expect(errors[0]).toBe(
      `A project tagged with "type:framework-free" is not allowed to import "${imported}"`,
    );
  });

  it('fails lint when a framework-free lib imports a NestJS lib', async () => {
    // revisions: a lib the NestJS one does not import, so the probe is a boundary breach and not also a cycle.
    const errors = await boundaryErrors(
      'libs/revisions/src/boundary-probe.ts',
      "import { DatabaseModule } from '@portcullis/persistence';\nexport const probe = DatabaseModule;\n",
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/type:framework-free/);
  });

  it('lets a framework-free lib import another framework-free lib', async () => {
    const errors = await boundaryErrors(
      'libs/metadata/src/boundary-probe.ts',
      "import { parseScope } from '@portcullis/protocol';\nexport const probe = parseScope;\n",
    );
    expect(errors).toEqual([]);
  });

  it('lets an extension package import the extension contract and the protocol lib', async () => {
    const errors = await boundaryErrors(
      'libs/extension-client-credentials/src/boundary-probe.ts',
      "import { defineExtension } from '@portcullis/extensions';\nimport { OAuthError } from '@portcullis/protocol';\nexport const probe = [defineExtension, OAuthError];\n",
    );
    expect(errors).toEqual([]);
  });

  it('lets an app import a NestJS lib', async () => {
    const errors = await boundaryErrors(
      'apps/authorization-server/src/boundary-probe.ts',
      "import { DatabaseModule } from '@portcullis/persistence';\nexport const probe = DatabaseModule;\n",
    );
    expect(errors).toEqual([]);
  });
});
