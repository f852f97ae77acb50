import { authorizationServerEnvFields, checkAuthorizationServerEnv } from '@portcullis/authorization';
import { baseEnvSchema } from '@portcullis/platform';
import { z } from 'zod';

/** The authorization server's configuration, parsed once at boot; see the README's configuration table. */
export const envSchema = baseEnvSchema({ port: 4000 })
  .extend({
    ...authorizationServerEnvFields('http://localhost:4000'),
    DEMO_PASSWORD: z.string().min(1).default('demo'),
    SEED_DEMO_USER: z.enum(['auto', 'true', 'false']).default('auto'),
  })
  .superRefine(checkAuthorizationServerEnv);

export type Env = z.infer<typeof envSchema>;

/** The demo user exists in development on the embedded database, or wherever SEED_DEMO_USER=true says. */
export function seedsDemoUser(config: Env): boolean {
  if (config.SEED_DEMO_USER !== 'auto') return config.SEED_DEMO_USER === 'true';
  return config.NODE_ENV === 'development' && !config.DATABASE_URL;
}
