/**
 * The token endpoint: redeeming the code and refreshing, through openid-client, and reading the result.
 *
 * Rules kept here:
 * - MCP "Authorization Flow Steps" and "Resource Parameter Implementation": the token request carries
 *   `code_verifier` and `resource` (RFC 8707 Section 2, the same value as the authorization request).
 * - RFC 6749 Section 6 and RFC 8707 Section 2: a refresh sends `resource` too; `invalid_grant` means the refresh token is dead
 *   and a new authorization is needed (`refresh_rejected`).
 * - RFC 6749 Section 5.1 / RFC 6750: `Bearer` tokens, and `DPoP` tokens (RFC 9449 Section 5) only when the
 *   request carried a proof; tokens are `1*VSCHAR` (the metadata schema), so a token can never inject a header line.
 *   A proof answered with a `Bearer` token is accepted (RFC 9449 Section 5.1: the server may not bind it), and the
 *   token is then used as a Bearer token.
 * - RFC 9449 Section 8: a token request refused with `use_dpop_nonce` and a `DPoP-Nonce` is sent once more, in full
 *   (a fresh proof with the nonce, and fresh client authentication), never more than once.
 * - MCP 2026-07-28 "Refresh Tokens": a refresh token is never assumed; when a refresh response has none, the
 *   previous one is kept (RFC 6749 Section 6: the server MAY issue a new one).
 * - Token endpoint error responses (RFC 6749 Section 5.2) are not authorization responses: their `error` may be
 *   shown. A 401 with `WWW-Authenticate` (failed client authentication, `invalid_client`) is read the same way: its
 *   JSON body is the error response.
 */
import * as oidc from 'openid-client';
import type { JsonObject } from '@portcullis/extensions';
import { TokenResponseSchema, type TokenResponse } from '@portcullis/metadata';
import { parseScope } from '@portcullis/protocol';
import { PortcullisError } from '../errors/portcullis-error.js';
import type { TokenProof } from '../proof/proof-of-possession.js';
import type { StoredTokenSet, TokenSetKey } from '../store/token-store.js';
import type { PendingAuthorization } from './authorization-request.js';

/**
 * Redeems a checked authorization response's code.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.3
 * @see https://www.rfc-editor.org/rfc/rfc7636#section-4.5
 */
export async function redeemAuthorizationCode(
  config: oidc.Configuration,
  checkedCallback: URL,
  pending: PendingAuthorization,
  proof?: TokenProof,
): Promise<TokenResponse> {
  try {
    const response = await withNonceRetry(proof, () =>
      oidc.authorizationCodeGrant(
        config,
        checkedCallback,
        { pkceCodeVerifier: pending.codeVerifier, expectedState: pending.state },
        { resource: pending.resource },
      ),
    );
    return readTokenResponse(response, proof);
  } catch (error) {
    throw tokenEndpointError(await challengeErrorBody(error), 'redeeming the authorization code');
  }
}

/**
 * Refreshes a token set, with `resource`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-6
 * @see https://www.rfc-editor.org/rfc/rfc8707#section-2
 */
export async function refreshTokenSet(
  config: oidc.Configuration,
  tokens: StoredTokenSet,
  proof?: TokenProof,
): Promise<TokenResponse> {
  const refreshToken = tokens.refreshToken;
  if (refreshToken === undefined)
    throw new TypeError('refreshTokenSet needs a token set with a refresh token');
  try {
    return readTokenResponse(
      await withNonceRetry(proof, () =>
        oidc.refreshTokenGrant(config, refreshToken, { resource: tokens.resourceIndicator }),
      ),
      proof,
    );
  } catch (thrown) {
    const error = await challengeErrorBody(thrown);
    if (error instanceof oidc.ResponseBodyError && error.error === 'invalid_grant') {
      throw new PortcullisError(
        'refresh_rejected',
        `The refresh token was rejected by ${tokens.issuer} (invalid_grant); a new authorization is needed.`,
        { issuer: tokens.issuer },
        { cause: error, authorizationServerError: { error: error.error, ...describe(error) } },
      );
    }
    throw tokenEndpointError(error, 'refreshing the access token');
  }
}

/**
 * A token response as stored: keyed, with its expiry and scopes resolved. `previous` supplies the refresh token
 * a refresh response did not rotate.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.1
 */
export function toStoredTokenSet(
  response: TokenResponse,
  context: {
    key: TokenSetKey;
    resourceIndicator: string;
    requestedScope: readonly string[];
    now: number;
    previous?: StoredTokenSet;
    /** The key the token request proved possession of (RFC 9449), kept with the tokens. */
    proofKey?: JsonObject | undefined;
  },
): StoredTokenSet {
  const refreshToken = response.refresh_token ?? context.previous?.refreshToken;
  return {
    ...context.key,
    resourceIndicator: context.resourceIndicator,
    accessToken: response.access_token,
    tokenType: response.token_type,
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(response.expires_in === undefined ? {} : { expiresAt: context.now + response.expires_in * 1000 }),
    scope:
      response.scope === undefined
        ? [...(context.previous?.scope ?? context.requestedScope)]
        : parseScope(response.scope),
    requestedScope: [...context.requestedScope],
    obtainedAt: context.now,
    ...(context.proofKey === undefined ? {} : { proofKey: context.proofKey }),
  };
}

/**
 * Runs a token request, and once more when the server asks for a proof with its nonce: a `use_dpop_nonce` error
 * with a `DPoP-Nonce` header, which the configuration's fetch has remembered for the next proof. The whole request
 * is repeated, so client authentication (a `private_key_jwt` assertion, single-use) is fresh too.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-8
 */
export async function withNonceRetry<T>(
  proof: TokenProof | undefined,
  request: () => Promise<T>,
): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (proof === undefined || !(await asksForNonce(proof, error))) throw error;
    return request();
  }
}

async function asksForNonce(proof: TokenProof, thrown: unknown): Promise<boolean> {
  const error = await challengeErrorBody(thrown);
  if (!(error instanceof oidc.ResponseBodyError) || !proof.pop.isNonceError(error.error)) return false;
  // The configuration's fetch remembered the nonce when the response came in; without one a retry is pointless.
  return proof.pop.nonceOf(error.response) !== undefined;
}

/**
 * A token endpoint response, checked: a valid RFC 6749 5.1 response with a Bearer token, or a token of the proof's
 * scheme (`DPoP`) when the request carried a proof.
 */
export function readTokenResponse(response: oidc.TokenEndpointResponse, proof?: TokenProof): TokenResponse {
  const parsed = TokenResponseSchema.safeParse({ ...response });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PortcullisError(
      'token_request_failed',
      `The token response is invalid (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}).`,
    );
  }
  const tokenType = parsed.data.token_type.toLowerCase();
  if (tokenType !== 'bearer' && (proof === undefined || tokenType !== proof.pop.scheme.toLowerCase())) {
    throw new PortcullisError(
      'unsupported_token_type',
      `The authorization server issued a "${parsed.data.token_type}" token; this client uses ${proof === undefined ? 'Bearer tokens only here' : `Bearer and ${proof.pop.scheme} tokens only`}.`,
      { tokenType: parsed.data.token_type },
    );
  }
  // Spelled as the schemes are (openid-client lowercases `token_type`); compared case-insensitively everywhere.
  return { ...parsed.data, token_type: tokenType === 'bearer' ? 'Bearer' : (proof?.pop.scheme ?? tokenType) };
}

/** What a failed token request becomes: `token_request_failed`, with the server's error when it sent one. */
export function tokenEndpointError(error: unknown, doing: string): PortcullisError {
  if (error instanceof PortcullisError) return error;
  if (error instanceof oidc.ResponseBodyError) {
    const details = describe(error);
    return new PortcullisError(
      'token_request_failed',
      `The token endpoint refused ${doing}: ${error.error}${details.errorDescription === undefined ? '' : ` (${details.errorDescription})`}.`,
      { status: error.status, error: error.error },
      { cause: error, authorizationServerError: { error: error.error, ...details } },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new PortcullisError(
    'token_request_failed',
    `The token request failed while ${doing}: ${message}.`,
    {},
    { cause: error },
  );
}

/**
 * openid-client reports a 401 with `WWW-Authenticate` (RFC 6749 Section 5.2: `invalid_client` after failed client
 * authentication) as a challenge; its JSON body, when it has an `error`, is the error response.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
export async function challengeErrorBody(error: unknown): Promise<unknown> {
  if (!(error instanceof oidc.WWWAuthenticateChallengeError)) return error;
  try {
    const body = (await error.response.clone().json()) as { error?: unknown };
    if (typeof body.error !== 'string') return error;
    return new oidc.ResponseBodyError('server responded with an error in the response body', {
      cause: body as ConstructorParameters<typeof oidc.ResponseBodyError>[1]['cause'],
      response: error.response,
    });
  } catch {
    return error;
  }
}

function describe(error: oidc.ResponseBodyError): { errorDescription?: string } {
  return typeof error.error_description === 'string' ? { errorDescription: error.error_description } : {};
}
