import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { withCachedJsonSchema } from './cached-json-schema.js';

describe('withCachedJsonSchema', () => {
  const schema = z.object({ id: z.string().describe('The note id.'), title: z.string().max(3).optional() });
  const options = { target: 'draft-2020-12' } as const;

  it("gives the schema's own JSON Schema, converted once per direction and frozen", () => {
    const cached = withCachedJsonSchema(schema);
    const input = cached['~standard'].jsonSchema.input(options);
    expect(input).toEqual(schema['~standard'].jsonSchema.input(options));
    expect(cached['~standard'].jsonSchema.input(options)).toBe(input);
    expect(cached['~standard'].jsonSchema.output(options)).toEqual(
      schema['~standard'].jsonSchema.output(options),
    );
    expect(Object.isFrozen(input)).toBe(true);
    expect(Object.isFrozen(input['properties'])).toBe(true);
    // Another target is converted on its own.
    expect(cached['~standard'].jsonSchema.input({ target: 'draft-07' })).not.toBe(input);
  });

  it('validates with the schema itself', async () => {
    const cached = withCachedJsonSchema(schema);
    expect(await cached['~standard'].validate({ id: 'n1' })).toEqual({ value: { id: 'n1' } });
    const refused = await cached['~standard'].validate({ id: 1, title: 'long' });
    expect('issues' in refused && refused.issues?.map((issue) => issue.path)).toEqual([['id'], ['title']]);
  });
});
