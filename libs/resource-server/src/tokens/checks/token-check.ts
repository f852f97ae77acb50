import { OAuthError } from '@portcullis/protocol';

/** What a check knows besides the token: the settings it enforces and the current time. */
export interface TokenCheckContext {
  /** This resource's canonical URI: the audience a token must name. */
  readonly resource: string;
  /** Issuers whose tokens are accepted. */
  readonly issuers: readonly string[];
  /** Accepted JWS algorithms. */
  readonly algorithms: readonly string[];
  /** Leeway on time claims, in seconds. */
  readonly clockSkewSeconds: number;
  /** The current time, in seconds since the epoch. */
  readonly now: number;
}

/** A decoded (not yet verified) part of a token: a JOSE header, JWT claims, or an introspection response. */
export type TokenFields = Readonly<Record<string, unknown>>;

/** One security rule over a token's header or claims; it throws `invalid_token` when the rule is broken. */
export type TokenCheck = (fields: TokenFields, context: TokenCheckContext) => void;

/**
 * The one way a check rejects: `invalid_token` (HTTP 401), with a description safe to send.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3.1 RFC 6750 Section 3.1}
 */
export function invalidToken(description: string): OAuthError {
  return new OAuthError('invalid_token', description);
}
