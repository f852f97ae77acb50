import { z } from 'zod';

/**
 * A JSON Web Key: an object with a `kty`; every other member is kept as sent.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-4
 */
export const JwkSchema = z.looseObject({ kty: z.string().min(1) });
/**
 * A parsed JSON Web Key.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-4
 */
export type Jwk = z.infer<typeof JwkSchema>;

/**
 * A JWK Set document: `{ "keys": [ ... ] }`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-5
 */
export const JwkSetSchema = z.looseObject({ keys: z.array(JwkSchema) });
/**
 * A parsed JWK Set.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-5
 */
export type JwkSet = z.infer<typeof JwkSetSchema>;

/**
 * JWK members that carry private or symmetric key material: RSA (`d`, `p`, `q`, `dp`, `dq`, `qi`, `oth`),
 * EC and OKP (`d`), symmetric (`k`). A document that publishes keys must carry none of them.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7518#section-6.3.2
 * @see https://www.rfc-editor.org/rfc/rfc7518#section-6.4.1
 * @see https://www.rfc-editor.org/rfc/rfc8037#section-2
 */
export const PRIVATE_JWK_MEMBERS = Object.freeze(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const);
