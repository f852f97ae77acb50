/**
 * Sender-constrained tokens on the client (DPoP, RFC 9449; MCP SEP-1932), through the composed extension's
 * `ClientProofOfPossession` hooks (`@portcullis/extensions`).
 *
 * Rules kept here:
 * - RFC 9449 Section 5.1 and SEP-1932: proofs are used with an authorization server only when its metadata offers
 *   them (`dpop_signing_alg_values_supported`, read by the extension's `algorithmFor`); otherwise the
 *   authorization runs with Bearer tokens as before.
 * - RFC 9728 Section 2 and RFC 9449 Section 7.1: and only for a resource that accepts them, one whose metadata
 *   advertises the scheme (`dpop_signing_alg_values_supported`, `dpop_bound_access_tokens_required`, read by the
 *   extension's `advertisedBy`) or whose 401 challenges with it (`WWW-Authenticate: DPoP`, the section's way for a
 *   resource to say it accepts DPoP); a resource that does neither gets Bearer tokens, since it could not read a
 *   bound one. The key's algorithm is one the resource lists too, where it lists any.
 * - RFC 9449 Section 2: one key pair per authorization; its tokens (access and refresh) are bound to it, so the
 *   private key is kept with them in the token store (`StoredTokenSet.proofKey`, sealed with the tokens by the file
 *   store) and deleted with them. It never reaches a progress event, an error or the command line's output.
 * - RFC 9449 Sections 4.2 and 11.1: a fresh proof (new `jti`, current `iat`) for every request, naming that
 *   request's method and URL, with `ath` when an access token goes along.
 * - RFC 9449 Sections 8 and 9: the latest `DPoP-Nonce` a server sent, on any response, is remembered per origin
 *   and put in every later proof to that origin. A nonce outside the RFC 9449 Section 8.1 syntax is ignored.
 * - RFC 9449 Section 10: the authorization request names the key with `dpop_jkt`, so the code is bound to it.
 * - RFC 9449 Section 7.1: a bound token is sent with the scheme's `Authorization` header (`DPoP <token>`) and a
 *   proof; a token the server issued as `Bearer` despite the proof (RFC 9449 Section 5.1 lets it) is sent as Bearer.
 */
import type { ClientProofOfPossession, JsonObject } from '@portcullis/extensions';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { parseWwwAuthenticate } from '@portcullis/protocol';
import type { BearerChallenge } from '../discovery/bearer-challenge.js';
import type { ResourceCredentials } from '../http/resource-request.js';
import type { StoredTokenSet } from '../store/token-store.js';

/** RFC 9449 Section 8.1: `nonce = 1*NQCHAR`, NQCHAR = %x21 / %x23-5B / %x5D-7E; bounded in length here. */
const NONCE = /^[\x21\x23-\x5b\x5d-\x7e]{1,1024}$/;

/**
 * One request to prove possession for.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-4.2
 */
export interface ProvenRequest {
  readonly method: string;
  readonly url: string | URL;
  /** The access token the request carries (resource requests), for `ath`. */
  readonly accessToken?: string;
}

/**
 * The key of one authorization and the proofs made with it, for its token requests.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-5
 */
export interface TokenProof {
  readonly pop: ProofOfPossession;
  /** The private JWK (with `alg`) the extension generated for the authorization. */
  readonly key: JsonObject;
}

/**
 * The client's proof of possession for one authorized fetch: the extension's hooks and the nonces servers gave.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-4
 */
export class ProofOfPossession {
  readonly #hooks: ClientProofOfPossession;
  /** Origin to the latest nonce its server sent (RFC 9449 Sections 8 and 9). */
  readonly #nonces = new Map<string, string>();

  constructor(hooks: ClientProofOfPossession) {
    this.#hooks = hooks;
  }

  /** The `Authorization` scheme of bound tokens (`DPoP`). */
  get scheme(): string {
    return this.#hooks.scheme;
  }

  /** The request header the proof travels in (`DPoP`). */
  get header(): string {
    return this.#hooks.header;
  }

  /**
   * Whether the resource accepts tokens bound this way: its metadata advertises the scheme, or the challenge that
   * started the authorization names it.
   *
   * @see https://www.rfc-editor.org/rfc/rfc9728#section-2
   * @see https://www.rfc-editor.org/rfc/rfc9449#section-7.1
   */
  acceptedBy(
    resourceMetadata: Readonly<Record<string, unknown>>,
    challenge: BearerChallenge | undefined,
  ): boolean {
    return (
      this.#hooks.advertisedBy?.(resourceMetadata) === true ||
      challenge?.schemes?.includes(this.scheme.toLowerCase()) === true
    );
  }

  /**
   * Whether an authorization server's metadata offers the scheme with an algorithm this client can use.
   *
   * @see https://www.rfc-editor.org/rfc/rfc9449#section-5.1
   */
  offeredBy(authorizationServerMetadata: Readonly<Record<string, unknown>>): boolean {
    return this.#hooks.algorithmFor(authorizationServerMetadata) !== undefined;
  }

  /**
   * A new key for an authorization at the server with this metadata, or `undefined` when the server offers no
   * proof of possession (then the authorization runs with Bearer tokens). With the resource's metadata, the key's
   * algorithm is one the resource lists too where possible.
   *
   * @see https://www.rfc-editor.org/rfc/rfc9449#section-5.1
   */
  async keyFor(
    authorizationServerMetadata: Readonly<Record<string, unknown>>,
    resourceMetadata?: Readonly<Record<string, unknown>>,
  ): Promise<JsonObject | undefined> {
    const algorithm = this.#hooks.algorithmFor(authorizationServerMetadata, resourceMetadata);
    return algorithm === undefined ? undefined : this.#hooks.generateKey(algorithm);
  }

  /**
   * Whether a token endpoint error says the server wants a proof: the extension's proof error
   * (`invalid_dpop_proof`) or its nonce error (`use_dpop_nonce`).
   *
   * @see https://www.rfc-editor.org/rfc/rfc9449#section-5
   */
  demandsProof(error: string | undefined): boolean {
    return error !== undefined && (error === this.#hooks.proofErrorCode || this.isNonceError(error));
  }

  /**
   * The authorization request parameters that bind the code to `key`: `dpop_jkt`, the key's JWK SHA-256
   * thumbprint (RFC 7638), for the DPoP scheme.
   *
   * @see https://www.rfc-editor.org/rfc/rfc9449#section-10
   */
  async authorizationRequestParameters(key: JsonObject): Promise<Record<string, string>> {
    if (this.scheme.toLowerCase() !== 'dpop') return {};
    // The thumbprint uses the required public members only (RFC 7638 Section 3.2), so the private JWK gives the same.
    return { dpop_jkt: await calculateJwkThumbprint(key as JWK, 'sha256') };
  }

  /**
   * A fresh proof of `request` signed with `key`, carrying the latest nonce of the request's origin.
   *
   * @see https://www.rfc-editor.org/rfc/rfc9449#section-4.2
   */
  proof(key: JsonObject, request: ProvenRequest): Promise<string> {
    const url = new URL(request.url);
    const nonce = this.#nonces.get(url.origin);
    return this.#hooks.proof(key, {
      method: request.method,
      url: url.href,
      ...(request.accessToken === undefined ? {} : { accessToken: request.accessToken }),
      ...(nonce === undefined ? {} : { nonce }),
    });
  }

  /**
   * Remembers the nonce a response from `url` carries, if any; returns it.
   *
   * @see https://www.rfc-editor.org/rfc/rfc9449#section-8.2
   * @see https://www.rfc-editor.org/rfc/rfc9449#section-9
   */
  rememberNonce(url: string | URL, response: Response): string | undefined {
    const nonce = this.nonceOf(response);
    if (nonce !== undefined) this.#nonces.set(new URL(url).origin, nonce);
    return nonce;
  }

  /** The nonce a response carries (`DPoP-Nonce`), when it is one (RFC 9449 Section 8.1 syntax). */
  nonceOf(response: Response): string | undefined {
    const nonce = response.headers.get(this.#hooks.nonceHeader)?.trim();
    return nonce !== undefined && NONCE.test(nonce) ? nonce : undefined;
  }

  /** Whether `error` is the code of a server that wants a proof with its nonce (`use_dpop_nonce`). */
  isNonceError(error: string | undefined): boolean {
    return error === this.#hooks.nonceErrorCode;
  }

  /**
   * Whether a resource's 401 asks for a proof with its nonce: a challenge of this scheme with
   * `error="use_dpop_nonce"`, and a usable nonce in the response.
   *
   * @see https://www.rfc-editor.org/rfc/rfc9449#section-9
   */
  asksForNonce(response: Response): boolean {
    if (response.status !== 401) return false;
    const header = response.headers.get('www-authenticate');
    if (header === null) return false;
    const scheme = this.scheme.toLowerCase();
    const challenged = parseWwwAuthenticate(header).some(
      (challenge) => challenge.scheme === scheme && this.isNonceError(challenge.params['error']),
    );
    return challenged && this.nonceOf(response) !== undefined;
  }

  /** Whether `tokens` is a token set whose access token is bound to its stored key (`token_type` of this scheme). */
  binds(tokens: StoredTokenSet): boolean {
    return tokens.proofKey !== undefined && tokens.tokenType.toLowerCase() === this.scheme.toLowerCase();
  }

  /**
   * The credentials of a resource request with a bound token: `Authorization: DPoP <token>` and a fresh proof per
   * request (and per redirect hop), remembering the nonces the resource sends.
   *
   * @see https://www.rfc-editor.org/rfc/rfc9449#section-7.1
   */
  resourceCredentials(key: JsonObject, accessToken: string): ResourceCredentials {
    return {
      headerNames: ['authorization', this.header.toLowerCase()],
      headersFor: async (method, url) => ({
        authorization: `${this.scheme} ${accessToken}`,
        [this.header]: await this.proof(key, { method, url, accessToken }),
      }),
      received: (url, response) => {
        this.rememberNonce(url, response);
      },
    };
  }
}

/**
 * Whether a stored token set's access token is bound to a key (its `token_type` is not `Bearer`). Such a token is
 * useless without its key and the extension that signs with it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-7.1
 */
export function isKeyBound(tokens: StoredTokenSet): boolean {
  return tokens.proofKey !== undefined && tokens.tokenType.toLowerCase() !== 'bearer';
}
