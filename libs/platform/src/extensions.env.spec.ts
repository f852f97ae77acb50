import { describe, expect, it } from '@jest/globals';
import { defineExtension } from '@portcullis/extensions';
import { z } from 'zod';
import { composeExtensions, extensionsEnvField } from './extensions.env.js';

const alpha = defineExtension({ id: 'com.example/alpha', version: '1.0.0' });
const beta = defineExtension({
  id: 'com.example/beta',
  version: '1.0.0',
  resourceServer: { metadata: { beta_supported: true } },
});
// Claims the same metadata member as beta: the registry refuses to compose the two.
const rival = defineExtension({
  id: 'com.example/rival',
  version: '1.0.0',
  resourceServer: { metadata: { beta_supported: false } },
});

const catalogue = { alpha, beta, rival };
const schema = z
  .object({ EXTENSIONS: extensionsEnvField(Object.keys(catalogue)) })
  .transform(composeExtensions(catalogue));

function issues(value: string): string[] {
  const result = schema.safeParse({ EXTENSIONS: value });
  if (result.success) throw new Error('the value was accepted');
  return result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
}

describe('extensionsEnvField then composeExtensions', () => {
  it('composes none when unset or blank', () => {
    expect(schema.parse({}).EXTENSIONS.list()).toEqual([]);
    expect(schema.parse({ EXTENSIONS: ' , ' }).EXTENSIONS.list()).toEqual([]);
  });

  it('composes the named extensions once each, whatever the spacing and repetition', () => {
    const registry = schema.parse({ EXTENSIONS: ' beta ,alpha,beta' }).EXTENSIONS;
    expect(registry.list().map(({ id }) => id)).toEqual(['com.example/alpha', 'com.example/beta']);
    expect(
      registry.resourceMetadata({ resource: 'https://mcp.example.com/mcp', revision: '2026-07-28' }),
    ).toEqual({ beta_supported: true });
  });

  it('refuses unknown names in one issue naming them and the known ones', () => {
    expect(issues('alpha,telepathy,constructor')).toEqual([
      'EXTENSIONS names unknown extensions telepathy, constructor (known: alpha, beta, rival)',
    ]);
  });

  it('refuses a set the registry cannot compose, with the registry’s reason', () => {
    const [issue, ...rest] = issues('beta,rival');
    expect(rest).toEqual([]);
    expect(issue).toMatch(/^EXTENSIONS cannot be composed: .*beta_supported/);
  });
});
