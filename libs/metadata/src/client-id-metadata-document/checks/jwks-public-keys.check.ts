/*
 * draft-ietf-oauth-client-id-metadata-document (later revisions, "Credential and Key Material Restrictions"):
 * "private key material MUST NOT be included in the Client ID Metadata Document; only public keys ... are
 * permitted". A key with any of `d`, `p`, `q`, `dp`, `dq`, `qi`, `oth` (RFC 7518 6.3.2, 6.2.2; RFC 8037 2) or
 * the symmetric `k` (RFC 7518 6.4.1) carries such material. Every offending key is reported. A malformed `jwks`
 * is reported by the schema, not here.
 */
import { PRIVATE_JWK_MEMBERS } from '../../schemas/jwk-set.schema.js';
import { violation, type ClientIdMetadataDocumentCheck } from '../violation.js';

/**
 * No key in `jwks` carries private or symmetric key material.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7518#section-6.3.2
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document
 */
export const checkJwksHasOnlyPublicKeys: ClientIdMetadataDocumentCheck = (document) => {
  const jwks = document['jwks'];
  if (typeof jwks !== 'object' || jwks === null) return [];
  const keys: unknown = (jwks as Record<string, unknown>)['keys'];
  if (!Array.isArray(keys)) return [];
  return keys.flatMap((key: unknown, index) => {
    if (typeof key !== 'object' || key === null) return [];
    const members = PRIVATE_JWK_MEMBERS.filter((member) => Object.hasOwn(key, member));
    if (members.length === 0) return [];
    return [
      violation('jwks_private_key', `jwks key ${index} carries private key members: ${members.join(', ')}`, [
        'jwks',
        'keys',
        index,
      ]),
    ];
  });
};
