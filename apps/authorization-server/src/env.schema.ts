import { authorizationServerEnvFields, checkAuthorizationServerEnv } from '@portcullis/authorization';
import {
  IdJagAudiencesSchema,
  TrustedIdentityProvidersSchema,
} from '@portcullis/extension-enterprise-managed-authorization';
import { TrustedWorkloadIssuersSchema } from '@portcullis/extension-workload-identity';
import {
  checkDpopAuthorizationServerEnv,
  dpopAuthorizationServerEnvFields,
} from '@portcullis/extension-dpop';
import { baseEnvSchema, composeExtensions, extensionsEnvField } from '@portcullis/platform';
import { z } from 'zod';
import { AVAILABLE_EXTENSIONS } from './extensions.js';

/** The authorization server's configuration, parsed once at boot; see docs/reference/environment.md. */
export const envSchema = baseEnvSchema({ port: 4000 })
  .extend({
    ...authorizationServerEnvFields('http://localhost:4000'),
    DEMO_PASSWORD: z.string().min(1).default('demo'),
    SEED_DEMO_USER: z.enum(['auto', 'true', 'false']).default('auto'),
    EXTENSIONS: extensionsEnvField(Object.keys(AVAILABLE_EXTENSIONS)),
    ENTERPRISE_IDPS: TrustedIdentityProvidersSchema,
    ENTERPRISE_IDP_AUDIENCES: IdJagAudiencesSchema,
    WORKLOAD_IDENTITY_ISSUERS: TrustedWorkloadIssuersSchema,
    ...dpopAuthorizationServerEnvFields,
  })
  .superRefine(checkAuthorizationServerEnv)
  .superRefine(checkDpopAuthorizationServerEnv)
  .superRefine((env, context) => {
    // Enterprise-managed authorization with neither side configured would do nothing: say so at boot instead.
    const enterprise = env.EXTENSIONS.includes('enterprise-managed-authorization');
    if (enterprise && env.ENTERPRISE_IDPS.length === 0 && env.ENTERPRISE_IDP_AUDIENCES.length === 0) {
      context.addIssue({
        code: 'custom',
        path: ['ENTERPRISE_IDPS'],
        message:
          'or ENTERPRISE_IDP_AUDIENCES is required with EXTENSIONS=enterprise-managed-authorization (the identity providers it trusts, or the authorization servers it is the identity provider for)',
      });
    }
    for (const [name, value] of [
      ['ENTERPRISE_IDPS', env.ENTERPRISE_IDPS],
      ['ENTERPRISE_IDP_AUDIENCES', env.ENTERPRISE_IDP_AUDIENCES],
    ] as const) {
      if (!enterprise && value.length > 0) {
        context.addIssue({
          code: 'custom',
          path: [name],
          message: 'is set but EXTENSIONS does not include enterprise-managed-authorization',
        });
      }
    }
    // The draft's "Cross-Domain Use": an identity provider never redeems its own ID-JAGs.
    if (env.ENTERPRISE_IDPS.some((idp) => idp.issuer === env.ISSUER)) {
      context.addIssue({
        code: 'custom',
        path: ['ENTERPRISE_IDPS'],
        message: 'names this server (ISSUER): an identity provider never redeems the ID-JAGs it issues',
      });
    }
    if (env.ENTERPRISE_IDP_AUDIENCES.some((entry) => entry.audience === env.ISSUER)) {
      context.addIssue({
        code: 'custom',
        path: ['ENTERPRISE_IDP_AUDIENCES'],
        message:
          'names this server (ISSUER): an identity provider issues ID-JAGs for other authorization servers',
      });
    }
  })
  .superRefine((env, context) => {
    // Workload identity federation (MCP SEP-1933) trusts nobody without issuers; issuers without it do nothing.
    const workloads = env.EXTENSIONS.includes('workload-identity');
    if (workloads !== env.WORKLOAD_IDENTITY_ISSUERS.length > 0) {
      context.addIssue({
        code: 'custom',
        path: ['WORKLOAD_IDENTITY_ISSUERS'],
        message: workloads
          ? 'is required with EXTENSIONS=workload-identity (the workload identity issuers it trusts)'
          : 'is set but EXTENSIONS does not include workload-identity',
      });
    }
    if (env.WORKLOAD_IDENTITY_ISSUERS.some((issuer) => issuer.issuer === env.ISSUER)) {
      context.addIssue({
        code: 'custom',
        path: ['WORKLOAD_IDENTITY_ISSUERS'],
        message: 'names this server (ISSUER): its own tokens are never workload assertions',
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
