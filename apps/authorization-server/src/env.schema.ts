import {
  authorizationServerEnvFields,
  checkAuthorizationServerEnv,
  composeExtensions,
  extensionsEnvField,
} from '@portcullis/authorization';
import { TrustedIdentityProvidersSchema } from '@portcullis/extension-enterprise-managed-authorization';
import { baseEnvSchema } from '@portcullis/platform';
import { z } from 'zod';
import { AVAILABLE_EXTENSIONS } from './extensions.js';

/** The authorization server's configuration, parsed once at boot; see the README's configuration table. */
export const envSchema = baseEnvSchema({ port: 4000 })
  .extend({
    ...authorizationServerEnvFields('http://localhost:4000'),
    DEMO_PASSWORD: z.string().min(1).default('demo'),
    SEED_DEMO_USER: z.enum(['auto', 'true', 'false']).default('auto'),
    EXTENSIONS: extensionsEnvField(Object.keys(AVAILABLE_EXTENSIONS)),
    ENTERPRISE_IDPS: TrustedIdentityProvidersSchema,
  })
  .superRefine(checkAuthorizationServerEnv)
  .superRefine((env, context) => {
    // An ID-JAG grant that trusts no identity provider would refuse every assertion: say so at boot instead.
    if (env.EXTENSIONS.includes('enterprise-managed-authorization') && env.ENTERPRISE_IDPS.length === 0) {
      context.addIssue({
        code: 'custom',
        path: ['ENTERPRISE_IDPS'],
        message:
          'is required with EXTENSIONS=enterprise-managed-authorization (the identity providers it trusts)',
      });
    }
  })
  .transform(composeExtensions(AVAILABLE_EXTENSIONS));

export type Env = z.infer<typeof envSchema>;

/** The demo user exists in development on the embedded database, or wherever SEED_DEMO_USER=true says. */
export function seedsDemoUser(config: Env): boolean {
  if (config.SEED_DEMO_USER !== 'auto') return config.SEED_DEMO_USER === 'true';
  return config.NODE_ENV === 'development' && !config.DATABASE_URL;
}
