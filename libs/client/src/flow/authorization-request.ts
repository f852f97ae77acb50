/**
 * The authorization request and the record kept with it.
 *
 * Rules kept here:
 * - MCP 2026-07-28 "Authorization Flow Steps": PKCE S256 (RFC 7636 Section 4), `state` (MCP "Open Redirection"),
 *   `resource` exactly as the PRM publishes it (RFC 8707 Section 2, RFC 9728 Section 3.3), and `scope` only when
 *   there are scopes to ask for (MCP "Scope Selection Strategy").
 * - MCP 2026-07-28 "Authorization Response Validation": the issuer is recorded, from validated metadata, in the
 *   same per-request record as the PKCE verifier and `state`, before the user-agent is redirected.
 * - OpenID Connect Core Section 11 (as the official MCP TypeScript SDK client does): with `offline_access`,
 *   `prompt=consent` is sent, so the server asks the user to consent to offline access.
 * - RFC 9449 Section 10: with a DPoP key, `dpop_jkt` names it, binding the code to it.
 */
import * as oidc from 'openid-client';
import { formatScope } from '@portcullis/protocol';
import { OFFLINE_ACCESS } from './scope-selection.js';

/**
 * What the client remembers about one authorization request until its callback is checked.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-2.4
 * @see https://www.rfc-editor.org/rfc/rfc7636#section-4.1
 */
export interface PendingAuthorization {
  readonly state: string;
  readonly codeVerifier: string;
  /** The issuer recorded from validated metadata (MCP 2026-07-28 "Authorization Response Validation"). */
  readonly issuer: string;
  /** The metadata's `authorization_response_iss_parameter_supported` (RFC 9207 Section 3), under every revision. */
  readonly issParameterSupported: boolean;
  readonly redirectUri: string;
  /** The `resource` parameter value. */
  readonly resource: string;
  readonly scope: readonly string[];
}

/**
 * Builds the authorization URL and its pending record.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1
 * @see https://www.rfc-editor.org/rfc/rfc7636#section-4.3
 * @see https://www.rfc-editor.org/rfc/rfc8707#section-2
 */
export async function buildAuthorizationRequest(
  config: oidc.Configuration,
  input: {
    issuer: string;
    issParameterSupported: boolean;
    redirectUri: string;
    resource: string;
    scope: readonly string[];
    /** Further parameters, e.g. `dpop_jkt` (RFC 9449 Section 10). */
    extraParameters?: Readonly<Record<string, string>>;
  },
): Promise<{ url: string; pending: PendingAuthorization }> {
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const parameters: Record<string, string> = {
    ...input.extraParameters,
    redirect_uri: input.redirectUri,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    resource: input.resource,
  };
  if (input.scope.length > 0) parameters['scope'] = formatScope(input.scope);
  if (input.scope.includes(OFFLINE_ACCESS)) parameters['prompt'] = 'consent';
  const url = oidc.buildAuthorizationUrl(config, parameters).href;
  return {
    url,
    pending: {
      state,
      codeVerifier,
      issuer: input.issuer,
      issParameterSupported: input.issParameterSupported,
      redirectUri: input.redirectUri,
      resource: input.resource,
      scope: [...input.scope],
    },
  };
}
