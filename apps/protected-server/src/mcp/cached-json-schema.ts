import type { StandardSchemaV1, StandardSchemaWithJSON } from '@modelcontextprotocol/server';

type Converter = StandardSchemaWithJSON['~standard']['jsonSchema'];
type ConverterOptions = Parameters<Converter['input']>[0];

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/**
 * `schema` with its JSON Schema (Standard JSON Schema, `~standard.jsonSchema`) converted once per direction and
 * target, validation left to `schema` itself. The SDK converts a tool's input schema every time it lists the tools (and
 * for each `tools/call`, to find `x-mcp-header` declarations), and in the 2026-07-28 era a server instance serves one
 * request, so the conversion would otherwise run on every `tools/list`. The cached JSON Schema is frozen: it is shared
 * by every answer.
 *
 * @see https://standardschema.dev/json-schema
 * @see https://modelcontextprotocol.io/specification/draft/server/tools#listing-tools
 */
export function withCachedJsonSchema<Schema extends StandardSchemaWithJSON>(
  schema: Schema,
): StandardSchemaWithJSON<StandardSchemaV1.InferInput<Schema>, StandardSchemaV1.InferOutput<Schema>> {
  const standard = schema['~standard'];
  const cache = new Map<string, Record<string, unknown>>();
  const cached =
    (io: 'input' | 'output') =>
    (options: ConverterOptions): Record<string, unknown> => {
      // Library options may carry anything (functions): such a conversion is not cached.
      if (options.libraryOptions !== undefined) return standard.jsonSchema[io](options);
      const key = `${io} ${options.target}`;
      let json = cache.get(key);
      if (json === undefined) {
        json = deepFreeze(standard.jsonSchema[io](options));
        cache.set(key, json);
      }
      return json;
    };
  return {
    '~standard': {
      version: standard.version,
      vendor: standard.vendor,
      validate: (value) => standard.validate(value),
      jsonSchema: { input: cached('input'), output: cached('output') },
    },
  } as StandardSchemaWithJSON<StandardSchemaV1.InferInput<Schema>, StandardSchemaV1.InferOutput<Schema>>;
}
