// The server side of DPoP (RFC 9449) for the loopback fixtures: every proof is checked with the extension's own
// `verifyDpopProof` (the whole RFC 9449 4.3 list: typ, alg, jwk, signature, jti once, htm, htu, iat, nonce, ath,
// the bound key), and what was proven is recorded for the tests.
import type { IncomingHttpHeaders } from 'node:http';
import { randomBytes } from 'node:crypto';
import { memoryReplayStore, verifyDpopProof } from '@portcullis/extension-dpop';
import { OAuthError } from '@portcullis/protocol';

export interface DpopServerOptions {
  /**
   * `required`: a proof without this server's nonce is refused with `use_dpop_nonce` and a `DPoP-Nonce` (RFC 9449
   * 8 and 9). `always-new`: every proof is refused that way, with a new nonce each time (a server that keeps asking).
   */
  readonly nonce?: 'required' | 'always-new';
}

export interface ProofRecord {
  readonly method: string;
  readonly url: string;
  /** The thumbprint of the proof's key, when it verified. */
  readonly jkt?: string;
  readonly jti?: string;
  /** The error the proof was refused with. */
  readonly error?: string;
}

export type ProofOutcome =
  { readonly ok: true; readonly jkt: string } | { readonly ok: false; readonly error: OAuthError };

/** One server's DPoP checks and their record. */
export class DpopChecker {
  readonly proofs: ProofRecord[] = [];
  readonly #replay = memoryReplayStore();
  readonly #nonce = `n-${randomBytes(6).toString('hex')}`;

  constructor(readonly options: DpopServerOptions = {}) {}

  /** Whether the request carries a proof at all. */
  static carriesProof(headers: IncomingHttpHeaders): boolean {
    return headers['dpop'] !== undefined;
  }

  async check(
    headers: IncomingHttpHeaders,
    expected: { method: string; url: string; accessToken?: string; boundTo?: string },
  ): Promise<ProofOutcome> {
    const values = headers['dpop'] === undefined ? [] : [headers['dpop']].flat();
    const always = this.options.nonce === 'always-new';
    try {
      const proof = await verifyDpopProof(values, {
        method: expected.method,
        url: expected.url,
        algorithms: ['ES256', 'EdDSA', 'ES384', 'PS256', 'RS256'],
        maxAgeSeconds: 60,
        ...(expected.accessToken === undefined ? {} : { accessToken: expected.accessToken }),
        ...(expected.boundTo === undefined ? {} : { boundTo: expected.boundTo }),
        ...(this.options.nonce === undefined
          ? {}
          : {
              nonces: {
                current: () => (always ? `n-${randomBytes(6).toString('hex')}` : this.#nonce),
                isValid: (nonce: string) => !always && nonce === this.#nonce,
              },
            }),
        useOnce: (jti, expiresAt) => this.#replay.useOnce(jti, expiresAt),
      });
      this.proofs.push({ method: expected.method, url: expected.url, jkt: proof.jkt, jti: proof.jti });
      return { ok: true, jkt: proof.jkt };
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      this.proofs.push({ method: expected.method, url: expected.url, error: error.code });
      return { ok: false, error };
    }
  }
}
