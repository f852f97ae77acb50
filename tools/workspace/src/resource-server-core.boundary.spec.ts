import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';

// The resource server lib is one package with a framework-free core and thin adapters published as subpaths
// (`/nest`, `/express`): the core is everything under libs/resource-server/src but those two folders, and the same
// ESLint configuration `nx lint` runs keeps frameworks and adapters out of it.
const root = fileURLToPath(new URL('../../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const probe = imported;\n`, {
    filePath: `${root}libs/resource-server/src/${filePath}`,
  });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

describe('the resource server core', () => {
  it.each([
    ["import { Injectable as imported } from '@nestjs/common';", '@nestjs/common'],
    ["import imported from 'fastify';", 'fastify'],
    ["import imported from 'express';", 'express'],
    ["import imported from 'passport';", 'passport'],
  ])('fails lint when it imports a framework (%s)', async (code, module) => {
    const errors = await restrictedImports('web/boundary-probe.ts', code);
    expect(errors).toEqual([
      `'${module}' import is restricted from being used by a pattern. The resource server core is framework-free.`,
    ]);
  });

  it('fails lint when it imports its NestJS adapter', async () => {
    const errors = await restrictedImports(
      'web/boundary-probe.ts',
      "import { BearerAuthGuard as imported } from '../nest/bearer-auth.guard.js';",
    );
    expect(errors).toEqual([
      "'../nest/bearer-auth.guard.js' import is restricted from being used by a pattern. The resource server core never imports one of its adapters.",
    ]);
  });

  it('lets the core import its own modules, and the adapters import frameworks and the core', async () => {
    expect(
      await restrictedImports(
        'web/boundary-probe.ts',
        "import { TokenVerifier as imported } from '../tokens/token-verifier.service.js';",
      ),
    ).toEqual([]);
    expect(
      await restrictedImports(
        'nest/boundary-probe.ts',
        "import { Injectable as imported } from '@nestjs/common';",
      ),
    ).toEqual([]);
    expect(
      await restrictedImports(
        'express/boundary-probe.ts',
        "import type { RequestHandler as imported } from 'express';",
      ),
    ).toEqual([]);
  });
});
