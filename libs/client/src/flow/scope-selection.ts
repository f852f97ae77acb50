/**
 * Which scopes the client asks for.
 *
 * Rules kept here:
 * - MCP 2026-07-28 "Scope Selection Strategy": initially (a) the `scope` of the 401 challenge; (b) otherwise every
 *   scope of the PRM `scopes_supported`; (c) otherwise no `scope` parameter at all. The same section: the
 *   challenged scopes are authoritative; no relationship with `scopes_supported` is assumed.
 * - MCP 2026-07-28 "Step-Up Authorization Flow" (step 2) and "Scope Selection Strategy" (feature
 *   `scope-union-on-reauthorization`): on re-authorization, the union of the scopes previously requested and the
 *   challenged ones. Without the feature, the challenged scopes alone.
 * - MCP 2026-07-28 "Refresh Tokens" (feature `refresh-token-guidance`): `offline_access` is added only when the
 *   authorization server lists it in `scopes_supported` and the client wants refresh tokens. A resource should not
 *   list it, so it is never taken from the PRM or a challenge as if it were the resource's scope.
 */
import { unionScopes } from '@portcullis/protocol';
import type { Revision } from '@portcullis/revisions';

/** The refresh-token scope of OpenID Connect Core 1.0 Section 11, which MCP 2026-07-28 "Refresh Tokens" reuses. */
export const OFFLINE_ACCESS = 'offline_access';

/**
 * The initial scope set of MCP 2026-07-28 "Scope Selection Strategy".
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-2
 */
export function selectInitialScopes(input: {
  challengeScope: readonly string[] | undefined;
  scopesSupported: readonly string[] | undefined;
}): string[] {
  const chosen = input.challengeScope ?? input.scopesSupported ?? [];
  return unionScopes(chosen.filter((scope) => scope !== OFFLINE_ACCESS));
}

/**
 * The scope set for a re-authorization after an `insufficient_scope` challenge (MCP 2026-07-28 "Step-Up
 * Authorization Flow", step 2).
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3.1
 */
export function selectStepUpScopes(input: {
  previouslyRequested: readonly string[];
  challengeScope: readonly string[];
  revision: Revision;
}): string[] {
  const challenged = input.challengeScope.filter((scope) => scope !== OFFLINE_ACCESS);
  const previous = input.previouslyRequested.filter((scope) => scope !== OFFLINE_ACCESS);
  return input.revision.supports('scope-union-on-reauthorization')
    ? unionScopes(previous, challenged)
    : unionScopes(challenged);
}

/**
 * The scopes to send: the resource scopes, plus `offline_access` when MCP 2026-07-28 "Refresh Tokens" allows and
 * the client wants it.
 *
 * @see https://openid.net/specs/openid-connect-core-1_0.html#OfflineAccess
 */
export function withOfflineAccess(
  scopes: readonly string[],
  input: {
    authorizationServerScopes: readonly string[] | undefined;
    wantsRefreshTokens: boolean;
    revision: Revision;
  },
): string[] {
  const wanted =
    input.wantsRefreshTokens &&
    input.revision.supports('refresh-token-guidance') &&
    (input.authorizationServerScopes ?? []).includes(OFFLINE_ACCESS);
  return wanted ? unionScopes(scopes, [OFFLINE_ACCESS]) : [...scopes];
}
