/**
 * Server-provided DPoP nonces (RFC 9449 sections 8 and 9) that need no shared state: a nonce is a time step and an
 * HMAC of it under the server's secret, so every instance with the same secret issues and accepts the same nonces.
 * A nonce is accepted during its own step and the next, so a client that just received one never meets a refusal
 * at a step boundary; a nonce older than two steps is refused with a fresh one.
 *
 * The nonce limits how long a proof made in advance stays usable (RFC 9449 section 11.2); it is not a secret.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual } from '@portcullis/protocol';

/** Issues and checks nonces. */
export interface DpopNonces {
  /** The nonce to hand out now. */
  current(): string;
  /** Whether a nonce a client sent is one of this server's, of the current or the previous step. */
  isValid(nonce: string): boolean;
}

export interface DpopNonceOptions {
  /**
   * The HMAC key, at least 32 bytes. Instances behind one balancer must share it; a process without one makes its
   * own, and its nonces are good at that process only.
   */
  readonly secret?: Uint8Array;
  /** Length of one step in seconds. Default 300. */
  readonly stepSeconds?: number;
  /** The clock, in milliseconds (tests). */
  readonly now?: () => number;
}

const NONCE = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/;

/**
 * Nonces keyed by `secret`, rotating every `stepSeconds`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-8
 */
export function dpopNonces(options: DpopNonceOptions = {}): DpopNonces {
  const secret = options.secret ?? randomBytes(32);
  if (secret.length < 32) throw new TypeError('a DPoP nonce secret needs at least 32 bytes');
  const stepSeconds = options.stepSeconds ?? 300;
  if (!Number.isInteger(stepSeconds) || stepSeconds < 10) {
    throw new TypeError('the DPoP nonce step is a whole number of seconds, at least 10');
  }
  const now = options.now ?? Date.now;
  const step = (): number => Math.floor(now() / 1000 / stepSeconds);
  const mac = (value: string): Buffer => createHmac('sha256', secret).update(`dpop-nonce:${value}`).digest();
  const nonceOf = (at: number): string => {
    const value = at.toString(36);
    return `${value}.${mac(value).toString('base64url')}`;
  };
  return {
    current: () => nonceOf(step()),
    isValid(nonce) {
      const [, value, tag] = NONCE.exec(nonce) ?? [];
      if (value === undefined || tag === undefined) return false;
      const age = step() - Number.parseInt(value, 36);
      if (age < 0 || age > 1) return false;
      return constantTimeEqual(Buffer.from(tag, 'base64url'), mac(value));
    },
  };
}
