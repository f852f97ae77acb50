// Rules kept: RFC 6749 4.1.3 (code and client bound to the code; `redirect_uri` required, and identical, when the
// authorization request included it, optional otherwise but then the one used), OAuth 2.1 4.1.3 and RFC 7636 4.6
// (code_verifier REQUIRED and checked against the S256 challenge), RFC 6749 4.1.2 and 10.5 (a code is single use;
// its second redemption fails with `invalid_grant` and revokes every token the first produced),
// RFC 8707 2.2 (a `resource` at the token endpoint must be the one granted), RFC 6749 5.2 (`invalid_grant` for
// every binding failure, saying no more than needed), RFC 9449 10 (a code bound with `dpop_jkt` needs a proof of
// that key: proof-binding.check.ts), RFC 9449 5 (a public client's refresh token is bound to the proof's key;
// the access token to the proof's key, whoever the client). Every check that can refuse runs before the code is
// consumed, so a refused request leaves it redeemable and only a code actually redeemed counts as replayed; the code
// is consumed in the same transaction that stores the tokens issued for it.
import { Injectable, Logger } from '@nestjs/common';
import type { TokenRequestProof, TokenResponse } from '@portcullis/extensions';
import {
  canonicalizeResourceUri,
  isCodeVerifier,
  OAuthError,
  verifyCodeChallenge,
} from '@portcullis/protocol';
import { UnitOfWork } from '@portcullis/persistence';
import type { AuthenticatedOAuthClient } from '../clients/client-authentication.js';
import type { RequestParameters } from '../http/request-parameters.js';
import { SecurityEvents } from '../events/security-events.js';
import { AuthorizationMetrics } from '../metrics/authorization.metrics.js';
import { GrantRepository, type CodeRedemption } from '../tokens/grant.repository.js';
import { TokenIssuer } from '../tokens/token-issuer.service.js';
import { assertProofOfBoundKey, storedConfirmation } from './proof-binding.check.js';
import type { TokenGrant } from './token-grant.js';

/** `grant_type=authorization_code`. */
@Injectable()
export class AuthorizationCodeGrant implements TokenGrant {
  readonly grantType = 'authorization_code';
  readonly #logger = new Logger('AuthorizationCodeGrant');

  constructor(
    private readonly grants: GrantRepository,
    private readonly issuer: TokenIssuer,
    private readonly work: UnitOfWork,
    private readonly metrics: AuthorizationMetrics,
    private readonly events: SecurityEvents,
  ) {}

  async handle(
    params: RequestParameters,
    { client, method }: AuthenticatedOAuthClient,
    proof: TokenRequestProof | undefined,
  ): Promise<TokenResponse> {
    const code = params.get('code');
    if (!code) throw new OAuthError('invalid_request', 'code is required');
    const verifier = params.get('code_verifier');
    if (!verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
    if (!isCodeVerifier(verifier)) throw new OAuthError('invalid_request', 'code_verifier is malformed');

    // Bindings first, without consuming: a request that could never redeem the code must not burn it.
    const stored = await this.grants.findCode(code);
    if (!stored) throw new OAuthError('invalid_grant', 'authorization code is invalid');
    // The client binding first: another client presenting a used code must not revoke this client's grant.
    if (stored.clientId !== client.clientId) {
      throw new OAuthError('invalid_grant', 'authorization code is invalid');
    }
    // The key binding before the replay check too: a code thief without the key can neither use nor revoke it.
    assertProofOfBoundKey(storedConfirmation(stored.confirmation), proof, 'authorization code');
    if (stored.consumedAt) return this.#replayed(stored.grantId, client.clientId);
    const redirectUri = params.get('redirect_uri');
    if (
      stored.redirectUriSent
        ? redirectUri !== stored.redirectUri
        : redirectUri !== undefined && redirectUri !== stored.redirectUri
    ) {
      throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
    }
    if (!verifyCodeChallenge(verifier, stored.codeChallenge, 'S256')) {
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
    }
    const family = await this.grants.findGrant(stored.grantId);
    if (!family) throw new OAuthError('invalid_grant', 'authorization code is invalid');
    assertSameResource(params.resources, family.resource);

    // The code is used up together with what it is exchanged for, or not at all: a failure before the commit (the
    // database gone, an extension's claims refused) leaves it redeemable.
    const outcome = await this.work.run(async () => {
      const redemption = await this.grants.redeemCode(stored);
      if (redemption.outcome !== 'redeemed') return redemption;
      // Read after the redemption, so a revocation that raced it is seen.
      const { grant } = redemption;
      if (grant.revokedAt) throw new OAuthError('invalid_grant', 'authorization code is invalid');
      return { outcome: 'issued' as const, response: await this.#issue(redemption, client, method, proof) };
    });
    if (outcome.outcome === 'replayed') return this.#replayed(outcome.grantId, client.clientId);
    if (outcome.outcome !== 'issued') throw new OAuthError('invalid_grant', 'authorization code is invalid');
    return outcome.response;
  }

  #issue(
    { code, grant }: Extract<CodeRedemption, { outcome: 'redeemed' }>,
    client: AuthenticatedOAuthClient['client'],
    method: AuthenticatedOAuthClient['method'],
    proof: TokenRequestProof | undefined,
  ): Promise<TokenResponse> {
    const refreshable = client.grantTypes.includes('refresh_token');
    // RFC 9449 5: a public client's refresh token is bound to the proof's key; a confidential client's is bound to
    // the client by its authentication already.
    const refreshConfirmation = method === 'none' ? proof?.confirmation : undefined;
    return this.issuer.issue({
      grantType: this.grantType,
      client: { clientId: client.clientId, metadata: client.metadata },
      subject: grant.userId,
      resource: grant.resource,
      scopes: grant.scopes,
      grant,
      ...(refreshable
        ? {
            refreshToken: {
              scopes: grant.scopes,
              expiresAt: refreshExpiry(grant.absoluteExpiresAt, this.#idleSeconds()),
              ...(refreshConfirmation ? { confirmation: refreshConfirmation } : {}),
            },
          }
        : {}),
      ...(grant.scopes.includes('openid')
        ? {
            idToken: {
              authTime: grant.authTime,
              ...(code.nonce ? { nonce: code.nonce } : {}),
            },
          }
        : {}),
      ...(proof ? { proof } : {}),
    });
  }

  #idleSeconds(): number {
    return this.issuer.lifetimes().refreshTokenIdle;
  }

  async #replayed(grantId: string, clientId: string): Promise<never> {
    this.#logger.warn(`authorization code replayed: revoking grant ${grantId}`);
    this.metrics.authorizationCodeReplayed();
    await this.grants.revokeGrant(grantId);
    const grant = await this.grants.findGrant(grantId);
    await this.events.record('authorization_code.replayed', {
      clientId,
      ...(grant ? { userId: grant.userId } : {}),
      detail: { grant: grantId, revoked: true },
    });
    throw new OAuthError('invalid_grant', 'authorization code is invalid');
  }
}

/**
 * RFC 8707 2.2: the token request's `resource`, when sent, must be the one the authorization was for.
 *
 * @throws OAuthError `invalid_target`
 */
export function assertSameResource(requested: readonly string[], granted: string): void {
  const [resource, ...more] = requested;
  if (resource === undefined) return;
  if (more.length > 0) throw new OAuthError('invalid_target', 'only one resource may be requested at a time');
  if (canonicalizeResourceUri(resource) !== granted) {
    throw new OAuthError('invalid_target', 'resource differs from the one authorized');
  }
}

/** A refresh token lives `idleSeconds`, and never past the grant's absolute expiry. */
export function refreshExpiry(absoluteExpiresAt: Date, idleSeconds: number): Date {
  return new Date(Math.min(absoluteExpiresAt.getTime(), Date.now() + idleSeconds * 1000));
}
