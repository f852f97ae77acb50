import type { ClientMetadata } from '@portcullis/metadata';
import type { Revision } from '@portcullis/revisions';

/** The `application_type` values of OpenID Connect Dynamic Client Registration 1.0 section 2. */
export type ApplicationType = 'web' | 'native';

/**
 * What the registration checks read and establish, in order: each check may rely on what the checks before it
 * set (`metadata` after the schema check, `redirectUris` after the redirect URI check, ...).
 */
export interface RegistrationContext {
  /** The request body as parsed JSON, before any check. */
  readonly body: unknown;
  readonly revision: Revision;
  /** The grant types this server offers (`grant_types_supported`). */
  readonly grantTypesSupported: readonly string[];
  /** Grant types this server offers that only the operator registers clients for (`operatorGrantTypes()`). */
  readonly operatorGrants?: readonly string[];
  /** The private-use redirect URI schemes the operator allows (`ALLOWED_REDIRECT_SCHEMES`), lowercase. */
  readonly privateUseSchemes?: readonly string[];
  metadata?: ClientMetadata;
  grantTypes?: string[];
  responseTypes?: string[];
  redirectUris?: string[];
  applicationType?: ApplicationType;
  tokenEndpointAuthMethod?: string;
}

/**
 * One rule of the registration endpoint. It returns to accept and throws an `OAuthError` (`invalid_redirect_uri`
 * or `invalid_client_metadata`, RFC 7591 3.2.2) to reject; nothing is stored unless every check passes.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.2.2
 */
export interface RegistrationCheck {
  readonly name: string;
  run(context: RegistrationContext): void;
}

type Established =
  | 'metadata'
  | 'grantTypes'
  | 'responseTypes'
  | 'redirectUris'
  | 'applicationType'
  | 'tokenEndpointAuthMethod';

/**
 * A field an earlier check established. The order of `REGISTRATION_CHECKS` guarantees it; a missing one is a
 * programming error in that order, never a client error.
 */
export function establishedField<K extends Established>(
  context: RegistrationContext,
  key: K,
): NonNullable<RegistrationContext[K]> {
  const value = context[key];
  if (value === undefined || value === null)
    throw new Error(`registration checks out of order: no ${key} yet`);
  return value as NonNullable<RegistrationContext[K]>;
}
