// Rules kept, from the Microsoft identity platform's documentation ("OpenID Connect on the Microsoft identity
// platform", "ID token claims reference", "Scopes and permissions", "OAuth 2.0 authorization code flow"):
// - the v2.0 endpoints of one tenant are discovered at `{base}/{tenant}/v2.0/.well-known/openid-configuration`;
//   for `common` and `organizations` the document's `issuer` is the template `{base}/{tenantid}/v2.0`, and an ID
//   token's `iss` is that template filled with the token's own `tid` (for `consumers`, the consumer tenant's);
// - PKCE S256 is supported though the discovery document does not list it;
// - v2.0 refuses a `resource` parameter (AADSTS901002): none is ever sent, the scopes say what is asked;
// - the person is `oid` within the tenant `tid`: `oid` is the same for every application of the tenant, whereas
//   `sub` is pairwise (different per application), so a second app registration or a move of the proxy to another
//   one would make everyone a new user; the local user is keyed by the filled issuer (the tenant) and `oid`;
// - the `email` claim is not verified by Entra (any administrator or user may set it), so it is never passed on as a
//   verified address.
// openid-client compares an ID token's `iss` with the configured issuer byte for byte (OpenID Connect Core
// 3.1.3.7 step 2), which the template cannot pass (it does so for login.microsoftonline.com itself only, not for a
// national cloud), so this provider takes the ID token out of the token response before openid-client reads it and
// validates it here with jose: signature against the discovered `jwks_uri` (Core 3.1.3.7 step 6, RFC 7515), `iss`
// against the template filled with the token's `tid` (step 2; OpenID Connect Discovery 4.3 asks the issuer be the
// one the token names), `aud` and `azp` (steps 3-5), `exp` and `iat` (steps 9-10), `nonce` (step 11).
import { Logger } from '@nestjs/common';
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload } from 'jose';
import type * as oidc from 'openid-client';
import { z } from 'zod';
import type { UpstreamOptions } from '../../proxy.options.js';
import { TENANT_ID } from '../allowed/allowed-users.js';
import { UpstreamError } from '../upstream.error.js';
import { statedProfile } from '../upstream-profile.js';
import { asObject } from './provider-api.js';
import type { ProviderIdentity, UpstreamProvider, UpstreamTokenResponse } from './upstream-provider.js';

/** Microsoft Entra ID's global sign-in host; national clouds have their own. */
export const ENTRA_BASE_URL = 'https://login.microsoftonline.com';

/** `UPSTREAM_TENANT`: a tenant ID, or one of the multi-tenant audiences v2.0 names. */
export const ENTRA_TENANT =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|common|organizations|consumers)$/;

/** The tenant of personal Microsoft accounts, whose ID tokens `consumers` issues. */
export const CONSUMERS_TENANT_ID = '9188040d-6c67-4c5b-b112-36a304b66dad';

/** The issuer template's placeholder, as the discovery document of `common` and `organizations` spells it. */
const TENANT_PLACEHOLDER = '{tenantid}';

/** The v2.0 issuer of `tenant` at `baseUrl`. */
export function entraIssuer(baseUrl: string, tenant: string): string {
  return `${baseUrl}/${tenant}/v2.0`;
}

/** The member the ID token is moved to, out of openid-client's reach. */
const ID_TOKEN_ASIDE = 'portcullis_entra_id_token';

const DiscoverySchema = z.looseObject({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  jwks_uri: z.string(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
});

/**
 * `UPSTREAM_PROVIDER=entra`: Microsoft Entra ID (work and school accounts) and personal Microsoft accounts, through
 * the v2.0 endpoints of `UPSTREAM_TENANT` at `UPSTREAM_BASE_URL`.
 *
 * @see https://learn.microsoft.com/en-us/entra/identity-platform/v2-protocols-oidc
 * @see https://learn.microsoft.com/en-us/entra/identity-platform/id-token-claims-reference
 * @see https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation
 */
export class EntraProvider implements UpstreamProvider {
  readonly name = 'entra';
  readonly openIdConnect = true;
  readonly validatesIdToken = true;
  readonly #logger = new Logger('Upstream');
  #keys?: { uri: string; set: ReturnType<typeof createRemoteJWKSet> };

  constructor(
    private readonly upstream: UpstreamOptions,
    private readonly settings: { readonly baseUrl: string; readonly tenant: string },
  ) {}

  /** The issuer an ID token of tenant `tid` must name. */
  #expectedIssuer(template: string, tid: string): string | undefined {
    const { baseUrl, tenant } = this.settings;
    if (tenant === 'common' || tenant === 'organizations') return template.replace(TENANT_PLACEHOLDER, tid);
    if (tenant === 'consumers') return tid === CONSUMERS_TENANT_ID ? template : undefined;
    return tid === tenant ? entraIssuer(baseUrl, tenant) : undefined;
  }

  /**
   * The tenant's discovery document, its `issuer` checked (the tenant's, or for `common` and `organizations` the
   * `{tenantid}` template at the same base; for `consumers` the consumer tenant's) and its endpoints at the base's
   * origin.
   *
   * @throws UpstreamError
   */
  async metadata(): Promise<oidc.ServerMetadata> {
    const { baseUrl, tenant } = this.settings;
    const url = `${entraIssuer(baseUrl, tenant)}/.well-known/openid-configuration`;
    const response = await fetch(url, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(this.upstream.timeoutMs),
    });
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    const parsed = DiscoverySchema.safeParse(body);
    if (response.status !== 200 || !parsed.success) {
      throw new UpstreamError('rejected', `Entra discovery answered ${response.status} without metadata`);
    }
    const document = parsed.data;
    const allowed =
      tenant === 'common' || tenant === 'organizations'
        ? entraIssuer(baseUrl, TENANT_PLACEHOLDER)
        : entraIssuer(baseUrl, tenant === 'consumers' ? CONSUMERS_TENANT_ID : tenant);
    if (document.issuer !== allowed) {
      throw new UpstreamError(
        'rejected',
        `Entra discovery named the issuer ${document.issuer}, not ${allowed}`,
      );
    }
    const origin = new URL(baseUrl).origin;
    for (const endpoint of [document.authorization_endpoint, document.token_endpoint, document.jwks_uri]) {
      if (!URL.canParse(endpoint) || new URL(endpoint).origin !== origin) {
        throw new UpstreamError('rejected', `Entra discovery named an endpoint outside ${origin}`);
      }
    }
    if (this.#keys?.uri !== document.jwks_uri) {
      this.#keys = {
        uri: document.jwks_uri,
        set: createRemoteJWKSet(new URL(document.jwks_uri), { timeoutDuration: this.upstream.timeoutMs }),
      };
    }
    const { userinfo_endpoint: _graph, ...metadata } = document;
    return {
      ...metadata,
      // Supported (authorization code flow documentation), not listed in the document.
      code_challenge_methods_supported: ['S256'],
    };
  }

  /** Nothing beyond the OAuth parameters: never `resource` (v2.0 refuses it), the scopes name what is asked. */
  authorizationParameters(): Readonly<Record<string, string>> {
    return {};
  }

  /** The ID token moved aside, to be validated in {@link identity}; an error answer is handed on unchanged. */
  async tokenResponse(response: Response): Promise<Response> {
    const text = await response.text();
    let body: Record<string, unknown> | undefined;
    try {
      body = asObject(JSON.parse(text)) as Record<string, unknown> | undefined;
    } catch {
      body = undefined;
    }
    if (!response.ok || !body || typeof body['id_token'] !== 'string') {
      return new Response(text, { status: response.status, headers: response.headers });
    }
    const { id_token: idToken, ...rest } = body;
    return new Response(JSON.stringify({ ...rest, [ID_TOKEN_ASIDE]: idToken }), {
      status: response.status,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    });
  }

  async identity(
    config: oidc.Configuration,
    tokens: UpstreamTokenResponse,
    checks: { readonly nonce?: string },
  ): Promise<ProviderIdentity> {
    const claims = await this.#validatedIdToken(config, tokens[ID_TOKEN_ASIDE], checks.nonce);
    const tid = claims['tid'] as string;
    const oid = claims['oid'];
    if (typeof oid !== 'string' || !TENANT_ID.test(oid.toLowerCase())) {
      // `oid` comes with the `profile` scope.
      throw new UpstreamError('rejected', 'the Entra ID token has no oid (ask the profile scope)');
    }
    const name = typeof claims['name'] === 'string' ? claims['name'] : undefined;
    const username =
      typeof claims['preferred_username'] === 'string' ? claims['preferred_username'] : undefined;
    const email = typeof claims['email'] === 'string' ? claims['email'] : undefined;
    return {
      issuer: claims.iss as string,
      subject: oid.toLowerCase(),
      displayName: username || name || oid,
      tenantId: tid,
      // No `email_verified`: Entra does not verify `email`.
      profile: statedProfile([{ ...(name ? { name } : {}), ...(email ? { email } : {}) }]),
    };
  }

  /**
   * The ID token validated per OpenID Connect Core 3.1.3.7 with the issuer of its own `tid`.
   *
   * @throws UpstreamError
   */
  async #validatedIdToken(config: oidc.Configuration, idToken: unknown, nonce: string | undefined) {
    if (typeof idToken !== 'string') throw new UpstreamError('rejected', 'Entra sent no ID token');
    let tid: unknown;
    try {
      tid = decodeJwt(idToken)['tid'];
    } catch {
      throw new UpstreamError('rejected', 'the Entra ID token is malformed');
    }
    const template = config.serverMetadata().issuer;
    const issuer =
      typeof tid === 'string' && TENANT_ID.test(tid) ? this.#expectedIssuer(template, tid) : undefined;
    if (!issuer || !this.#keys) {
      throw new UpstreamError('rejected', 'the Entra ID token names no tenant this sign-in accepts');
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, this.#keys.set, {
        issuer,
        audience: this.upstream.clientId,
        algorithms: ['RS256'],
        requiredClaims: ['iat', 'exp', 'sub'],
        clockTolerance: 30,
      }));
    } catch (error) {
      // The reason only: the error carries the token's claims, which name the person.
      this.#logger.warn(`the Entra ID token failed validation: ${(error as Error).message}`);
      throw new UpstreamError('rejected', 'the Entra ID token failed validation');
    }
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (audiences.length > 1 && payload['azp'] !== this.upstream.clientId) {
      throw new UpstreamError('rejected', 'the Entra ID token was issued to another party (azp)');
    }
    if (nonce !== undefined && payload['nonce'] !== nonce) {
      throw new UpstreamError('rejected', 'the Entra ID token does not carry this sign-in nonce');
    }
    return payload;
  }
}
