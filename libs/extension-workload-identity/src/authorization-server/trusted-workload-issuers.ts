import { isScopeToken } from '@portcullis/protocol';
import { z } from 'zod';
import { jsonListEnvSchema } from '@portcullis/metadata';

/** A JWK Set of asymmetric public keys (RFC 7517 5): what a workload platform signs its JWTs with. */
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
const EndpointSchema = z.string().refine((value) => {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.hash || url.username || url.password) return false;
  return (
    url.protocol === 'https:' ||
    (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))
  );
}, 'must be an https URL (http only on a loopback host)');

/** Visible ASCII, no space (RFC 6749 A.1 `client_id` is VSCHAR; a subject pattern has no reason for more). */
const VISIBLE = /^[\x21-\x7E]+$/u;

/**
 * A trust rule: the workloads of an issuer whose `sub` matches `subject` get tokens as `client_id`, with at most
 * `scope`. `subject` is the exact `sub`, or a pattern where `*` stands for any run of characters (anchored at both
 * ends: `system:serviceaccount:prod:*` matches every service account of the `prod` namespace, nothing else).
 * `client_id` must not be an http(s) URL: such client IDs belong to client ID metadata documents, which anyone who
 * hosts a document can name.
 */
export const SubjectRuleSchema = z
  .object({
    subject: z.string().max(1024).regex(VISIBLE, 'must be visible ASCII without spaces'),
    client_id: z
      .string()
      .max(255)
      .regex(VISIBLE, 'must be visible ASCII without spaces')
      .refine(
        (value) => !/^https?:/iu.test(value),
        'must not be a URL (those name client ID metadata documents)',
      ),
    scope: z
      .string()
      .refine(
        (value) => value.split(' ').every(isScopeToken),
        'must be space-separated scope values (RFC 6749 3.3)',
      ),
  })
  .strict();

export type SubjectRule = z.infer<typeof SubjectRuleSchema>;

/**
 * A workload identity issuer the operator trusts (MCP SEP-1933: "trusted issuers"): its issuer identifier exactly
 * as it appears in `iss`, its public keys inline or at a `jwks_uri` (exactly one), the `aud` values its JWTs may
 * carry for this server (default: this server's issuer and its token endpoint, RFC 7523 3 item 3), the longest
 * lifetime it may give them (`exp` minus `iat`, seconds, default 3600), whether each of its JWTs may be exchanged
 * once only (`single_use`, default false: platforms hand a workload one token and rotate it on their own schedule, so
 * a Kubernetes projected token or a cloud identity token is presented again for every new access token; with
 * `single_use` a `jti` is required and recorded, RFC 7523 3 item 7), and the trust rules of its workloads.
 *
 * @see https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1933
 */
export const TrustedWorkloadIssuerSchema = z
  .object({
    issuer: EndpointSchema,
    jwks_uri: EndpointSchema.optional(),
    jwks: PublicJwkSetSchema.optional(),
    audiences: z.array(z.string().min(1).regex(VISIBLE, 'must be visible ASCII')).min(1).optional(),
    max_lifetime: z.number().int().min(60).max(86_400).optional(),
    single_use: z.boolean().optional(),
    subjects: z.array(SubjectRuleSchema).min(1),
  })
  .strict()
  .refine((issuer) => (issuer.jwks_uri === undefined) !== (issuer.jwks === undefined), {
    message: 'give exactly one of jwks_uri or jwks',
  });

export type TrustedWorkloadIssuer = z.infer<typeof TrustedWorkloadIssuerSchema>;

/**
 * `WORKLOAD_IDENTITY_ISSUERS`: a JSON array of trusted workload issuers, e.g.
 * `[{"issuer":"https://k8s.example.com","jwks_uri":"https://k8s.example.com/openid/v1/jwks",
 * "subjects":[{"subject":"system:serviceaccount:prod:*","client_id":"prod-agents","scope":"notes:read"}]}]`.
 * Unset: none.
 */
export const TrustedWorkloadIssuersSchema = jsonListEnvSchema(TrustedWorkloadIssuerSchema, {
  shape:
    '{issuer, jwks_uri | jwks, audiences?, max_lifetime?, single_use?, subjects: [{subject, client_id, scope}]}',
  key: (issuer) => issuer.issuer,
  keyName: 'issuer',
});
