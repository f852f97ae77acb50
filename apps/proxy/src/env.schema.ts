import { baseEnvSchema } from '@portcullis/platform';
import type { z } from 'zod';

/** The proxy's configuration, parsed once at boot; see the README's configuration table. */
export const envSchema = baseEnvSchema({ port: 4200 });

export type Env = z.infer<typeof envSchema>;
