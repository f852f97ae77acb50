import { z } from 'zod';
import { jsonListEnvSchema } from '@portcullis/metadata';

/** A JWK Set of asymmetric public keys (RFC 7517 5): what an IdP signs ID-JAGs with. */
const PublicJwkSetSchema = z.object({
  keys: z
    .array(
      z
        .object({ kty: z.enum(['RSA', 'EC', 'OKP']) })
        .passthrough()
        .refine((key) => !('d' in key), 'a private key; give the public keys only'),
    )
    .min(1),
});

/** An absolute https URL, or http on a loopback host (development). */
export const EndpointSchema = z.string().refine((value) => {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.hash || url.username || url.password) return false;
  return (
    url.protocol === 'https:' ||
    (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))
  );
}, 'must be an https URL (http only on a loopback host)');

/**
 * An enterprise identity provider the operator trusts to issue ID-JAGs for this authorization server: its issuer
 * identifier, exactly as it appears in `iss`, and its public keys, inline or at a `jwks_uri` (exactly one).
 *
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx
 */
export const TrustedIdentityProviderSchema = z
  .object({
    issuer: EndpointSchema,
    jwks_uri: EndpointSchema.optional(),
    jwks: PublicJwkSetSchema.optional(),
  })
  .strict()
  .refine((idp) => (idp.jwks_uri === undefined) !== (idp.jwks === undefined), {
    message: 'give exactly one of jwks_uri or jwks',
  });

export type TrustedIdentityProvider = z.infer<typeof TrustedIdentityProviderSchema>;

/**
 * `ENTERPRISE_IDPS`: a JSON array of trusted identity providers, e.g.
 * `[{"issuer":"https://idp.example.com","jwks_uri":"https://idp.example.com/jwks"}]`. Unset: none.
 */
export const TrustedIdentityProvidersSchema = jsonListEnvSchema(TrustedIdentityProviderSchema, {
  shape: '{issuer, jwks_uri | jwks}',
  key: (idp) => idp.issuer,
  keyName: 'issuer',
});
