/**
 * When a rotated key may start signing, so that no resource server meets a token under a `kid` it cannot find.
 *
 * A resource server holds the key set it fetched for at most `JWKS_MAX_AGE` seconds (the `Cache-Control: max-age`
 * of `jwks_uri`), and one that meets an unknown `kid` fetches the set again at most once per refetch cooldown
 * (jose's `createRemoteJWKSet` `cooldownDuration`, 30 s by default; Portcullis's resource server the same), answering
 * `invalid_token` meanwhile. A new key is therefore published first and signs only once every instance publishes it
 * (one reload interval) and every key set fetched before that has aged out or may be fetched again. Every key set a
 * resource server holds when the key starts signing then has it, and a `kid` missing from a set fetched after the
 * token was issued, or within the cooldown, is a forgery.
 *
 * @see https://openid.net/specs/openid-connect-core-1_0.html#RotateSigKeys
 * @see https://www.rfc-editor.org/rfc/rfc9111#section-5.2.2.1 (max-age)
 */

/** `Cache-Control: max-age` of `jwks_uri` when `JWKS_MAX_AGE` is not set, in seconds. */
export const DEFAULT_JWKS_MAX_AGE = 300;

/**
 * The refetch cooldown resource servers are assumed to keep at most (jose's default, and Portcullis's), in seconds,
 * unless the deployment says otherwise (`RESOURCE_SERVER_REFETCH_COOLDOWN`).
 */
export const RESOURCE_SERVER_REFETCH_COOLDOWN = 30;

/**
 * The delay between `keys rotate` and the new key's first signature when `SIGNING_KEY_ACTIVATION_DELAY` is not set:
 * the key set's cache lifetime, one reload interval and the resource servers' refetch cooldown, in seconds.
 */
export function defaultActivationDelay(
  jwksMaxAge: number,
  reloadInterval: number,
  refetchCooldown: number = RESOURCE_SERVER_REFETCH_COOLDOWN,
): number {
  return jwksMaxAge + reloadInterval + refetchCooldown;
}

/**
 * The shortest safe activation delay, in seconds: one reload interval (until then an instance may still publish the
 * key set without the new key) plus the longer of the key set's cache lifetime and the resource servers' refetch
 * cooldown. A resource server that fetched the set from such an instance just before that reload keeps it for its
 * cache lifetime, and one that met an unknown `kid` then refetches no sooner than its cooldown; either way it holds
 * the new key once the delay has passed. So a resource server's cooldown must not exceed the activation delay minus
 * the reload interval. {@link defaultActivationDelay} is never shorter.
 */
export function leastActivationDelay(
  jwksMaxAge: number,
  reloadInterval: number,
  refetchCooldown: number = RESOURCE_SERVER_REFETCH_COOLDOWN,
): number {
  return Math.max(jwksMaxAge, refetchCooldown) + reloadInterval;
}
