import { z } from 'zod';

/**
 * An environment variable holding a JSON array of `item`s, each named once by `key`: unset or blank is none; text
 * that is not JSON, an item the schema refuses, or a key named twice is one issue that says which. For extensions'
 * settings such as the trusted issuers of enterprise-managed authorization and of workload identity federation.
 */
export function jsonListEnvSchema<Item extends z.ZodType>(
  item: Item,
  options: {
    readonly shape: string;
    readonly key: (value: z.infer<Item>) => string;
    readonly keyName: string;
  },
) {
  return z
    .string()
    .optional()
    .transform((text, context): z.infer<Item>[] => {
      if (!text?.trim()) return [];
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        context.addIssue({ code: 'custom', message: `is not JSON (a JSON array of ${options.shape})` });
        return z.NEVER;
      }
      const parsed = z.array(item).safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        context.addIssue({
          code: 'custom',
          message: `${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}`,
        });
        return z.NEVER;
      }
      const keys = parsed.data.map(options.key);
      if (new Set(keys).size !== keys.length) {
        context.addIssue({ code: 'custom', message: `names one ${options.keyName} twice` });
        return z.NEVER;
      }
      return parsed.data;
    });
}
