import { baseEnvSchema } from '@portcullis/platform';
import type { z } from 'zod';

/** The authorization server's configuration, parsed once at boot; see the README's configuration table. */
export const envSchema = baseEnvSchema({ port: 4000 });

export type Env = z.infer<typeof envSchema>;
