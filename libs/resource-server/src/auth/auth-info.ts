import type { Confirmation } from '@portcullis/extensions';

/**
 * What a protected handler learns about the request's access token: who, through which client, with which
 * scopes, for which audience, until when. Never the token itself: a handler that holds no token cannot pass it
 * through to an upstream API (MCP "Access Token Privilege Restriction"; RFC 9700 Section 4.10 on token replay), so
 * the rule holds by construction rather than by review.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9068#section-2.2 RFC 9068 Section 2.2 (the claims it comes from)}
 * @see {@link https://www.rfc-editor.org/rfc/rfc7662#section-2.2 RFC 7662 Section 2.2 (the introspection members)}
 */
export interface AuthInfo {
  /** The resource owner: the token's `sub`. */
  readonly subject: string;
  /** The OAuth client the token was issued to: `client_id`. */
  readonly clientId: string;
  /** The granted scopes, as issued (the hierarchy is applied when sufficiency is decided, not here). */
  readonly scopes: readonly string[];
  /** Every audience the token names; this resource's canonical URI is always among them. */
  readonly audience: readonly string[];
  /** The authorization server that issued it: `iss`. */
  readonly issuer: string;
  /** Expiry, in seconds since the epoch: `exp`. */
  readonly expiresAt: number;
  /** The token's identifier (`jti`), when it has one: for audit logs and revocation, never a secret. */
  readonly tokenId?: string;
  /**
   * The key the token is bound to (RFC 7800 `cnf`; RFC 9449 Section 6: `{ jkt }` for DPoP), from the JWT or the
   * introspection answer; absent for an unbound token. The guard checks the request's proof against it.
   */
  readonly confirmation?: Confirmation;
  /** How the token was validated. */
  readonly validatedBy: 'jwt' | 'introspection';
}
