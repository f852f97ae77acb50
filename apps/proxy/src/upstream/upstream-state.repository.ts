import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { open, seal } from '@portcullis/authorization';
import { PrismaClient } from '@portcullis/persistence';
import { PROXY_OPTIONS, UPSTREAM_STATE_TTL_SECONDS, type ProxyOptions } from '../proxy.options.js';

/** What every upstream sign-in in progress keeps, whatever it is for. */
interface UpstreamSignInBase {
  /** SHA-256 of the browser-binding cookie of the browser that started it. */
  readonly browserBinding: string;
  readonly codeVerifier: string;
  readonly nonce?: string;
}

/** One upstream sign-in in progress, as the callback needs it. */
export type UpstreamSignInState =
  /** It continues a pending authorization (after the proxy's consent). */
  | (UpstreamSignInBase & {
      readonly purpose: 'authorization';
      /** The pending authorization's handle (opened). */
      readonly interaction: string;
      readonly clientId: string;
    })
  /**
   * It signs the person in to the connected apps page and nothing else; with a connect ticket, on the way to connect a
   * connection other than the sign-in provider's for that ticket's user (back to its link once signed in).
   */
  | (UpstreamSignInBase & { readonly purpose: 'account'; readonly ticket?: string })
  /** It connects a connection again for the user a connect ticket names (`ConnectTickets`). */
  | (UpstreamSignInBase & {
      readonly purpose: 'connect';
      /** The connect ticket, as issued (sealed). */
      readonly ticket: string;
    });

/** What {@link UpstreamStates.take} found for a `state`. */
export type TakenState =
  | { readonly outcome: 'taken'; readonly state: UpstreamSignInState }
  /** Never issued, or already taken (a replay). */
  | { readonly outcome: 'unknown' }
  /** Issued, but older than 10 minutes; it is deleted now. */
  | { readonly outcome: 'expired' };

/**
 * The server-side record behind each upstream `state`: created only when the browser goes upstream, stored by the
 * SHA-256 of the random `state` (a database reader cannot answer a callback), secrets sealed, taken exactly once,
 * valid 10 minutes.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.7.1 (state as a one-time CSRF token bound to the browser)
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-10.12
 */
@Injectable()
export class UpstreamStates {
  readonly #key: Uint8Array;

  constructor(
    private readonly prisma: PrismaClient,
    @Inject(PROXY_OPTIONS) options: ProxyOptions,
  ) {
    this.#key = options.sealingKey;
  }

  /** A fresh `state`: 256 random bits. */
  static newState(): string {
    return randomBytes(32).toString('base64url');
  }

  /** Stores the sign-in that `state` (from {@link UpstreamStates.newState}) stands for. */
  async create(state: string, signIn: UpstreamSignInState): Promise<void> {
    const id = hash(state);
    await this.prisma.upstreamState.create({
      data: {
        id,
        purpose: signIn.purpose,
        ...(signIn.purpose === 'authorization'
          ? {
              interaction: seal(signIn.interaction, this.#key, `upstream-state\n${id}\ninteraction`),
              clientId: signIn.clientId,
            }
          : signIn.ticket !== undefined
            ? { interaction: seal(signIn.ticket, this.#key, `upstream-state\n${id}\nticket`) }
            : {}),
        browserBinding: signIn.browserBinding,
        codeVerifier: seal(signIn.codeVerifier, this.#key, `upstream-state\n${id}\ncode_verifier`),
        nonce: signIn.nonce ?? null,
        expiresAt: new Date(Date.now() + UPSTREAM_STATE_TTL_SECONDS * 1000),
      },
    });
  }

  /**
   * The record of `state`, left in place: what the callback checks before it takes it (an expired one is deleted).
   */
  async peek(state: string): Promise<TakenState> {
    const id = hash(state);
    const row = await this.prisma.upstreamState.findUnique({ where: { id } });
    if (!row) return { outcome: 'unknown' };
    if (row.expiresAt.getTime() <= Date.now()) {
      await this.prisma.upstreamState.deleteMany({ where: { id } });
      return { outcome: 'expired' };
    }
    return { outcome: 'taken', state: this.#open(id, row) };
  }

  /**
   * Removes the record of `state` and returns it; only the one caller that removed it gets it, so a replayed or
   * concurrent second callback finds nothing.
   */
  async take(state: string): Promise<TakenState> {
    const id = hash(state);
    const row = await this.prisma.upstreamState.findUnique({ where: { id } });
    if (!row) return { outcome: 'unknown' };
    const { count } = await this.prisma.upstreamState.deleteMany({ where: { id } });
    if (count !== 1) return { outcome: 'unknown' };
    if (row.expiresAt.getTime() <= Date.now()) return { outcome: 'expired' };
    return { outcome: 'taken', state: this.#open(id, row) };
  }

  #open(
    id: string,
    row: {
      purpose: string;
      interaction: string | null;
      clientId: string | null;
      browserBinding: string;
      codeVerifier: string;
      nonce: string | null;
    },
  ): UpstreamSignInState {
    const base = {
      browserBinding: row.browserBinding,
      codeVerifier: open(row.codeVerifier, this.#key, `upstream-state\n${id}\ncode_verifier`),
      ...(row.nonce ? { nonce: row.nonce } : {}),
    };
    if (row.purpose === 'account') {
      return row.interaction === null
        ? { purpose: 'account', ...base }
        : {
            purpose: 'account',
            ticket: open(row.interaction, this.#key, `upstream-state\n${id}\nticket`),
            ...base,
          };
    }
    if (row.purpose === 'connect' && row.interaction !== null) {
      return {
        purpose: 'connect',
        ticket: open(row.interaction, this.#key, `upstream-state\n${id}\nticket`),
        ...base,
      };
    }
    if (row.purpose !== 'authorization' || row.interaction === null || row.clientId === null) {
      throw new Error(`upstream state ${id} is neither an authorization, an account sign-in nor a connect`);
    }
    return {
      purpose: 'authorization',
      interaction: open(row.interaction, this.#key, `upstream-state\n${id}\ninteraction`),
      clientId: row.clientId,
      ...base,
    };
  }

  /** Deletes every record past its lifetime. */
  async purgeExpired(now = new Date()): Promise<number> {
    const { count } = await this.prisma.upstreamState.deleteMany({ where: { expiresAt: { lte: now } } });
    return count;
  }
}

/** SHA-256, base64url: how `state` values and browser bindings are stored. */
export function hash(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}
