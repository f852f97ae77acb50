import { Inject, Injectable } from '@nestjs/common';
import { open, seal } from '@portcullis/authorization';
import { PrismaClient } from '@portcullis/persistence';
import { PROXY_OPTIONS, type ProxyOptions } from '../proxy.options.js';
import type { UpstreamSignIn } from './upstream-client.service.js';

/** Upstream tokens of one user, opened, for the proxy's own calls to upstream APIs. */
export interface StoredUpstreamTokens {
  readonly accessToken: string;
  readonly refreshToken?: string;
  readonly scopes: readonly string[];
  readonly expiresAt?: Date;
}

/**
 * The tokens the upstream issued to the proxy, one set per user and upstream, sealed with AES-256-GCM under the
 * proxy's key and bound (as associated data) to the user and the issuer, so a row copied to another user does not
 * open. They serve the proxy's own server-side calls; no endpoint returns them and no client ever sees them.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#token-passthrough
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.10
 */
@Injectable()
export class UpstreamTokens {
  readonly #key: Uint8Array;

  constructor(
    private readonly prisma: PrismaClient,
    @Inject(PROXY_OPTIONS) options: ProxyOptions,
  ) {
    this.#key = options.sealingKey;
  }

  /** Replaces the user's upstream tokens with the ones of this sign-in. */
  async store(userId: string, signIn: UpstreamSignIn): Promise<void> {
    const { issuer } = signIn;
    const data = {
      accessToken: seal(signIn.accessToken, this.#key, context(userId, issuer, 'access_token')),
      refreshToken: signIn.refreshToken
        ? seal(signIn.refreshToken, this.#key, context(userId, issuer, 'refresh_token'))
        : null,
      scopes: [...signIn.scopes],
      expiresAt: signIn.expiresAt ?? null,
    };
    await this.prisma.upstreamToken.upsert({
      where: { userId_issuer: { userId, issuer } },
      create: { userId, issuer, ...data },
      update: data,
    });
  }

  /**
   * The user's upstream tokens, opened; undefined when there are none, or when they no longer open (sealed under
   * another key, such as the per-process key of a development run without secrets, or copied from another user).
   */
  async find(userId: string, issuer: string): Promise<StoredUpstreamTokens | undefined> {
    const row = await this.prisma.upstreamToken.findUnique({ where: { userId_issuer: { userId, issuer } } });
    if (!row) return undefined;
    try {
      return {
        accessToken: open(row.accessToken, this.#key, context(userId, issuer, 'access_token')),
        ...(row.refreshToken
          ? { refreshToken: open(row.refreshToken, this.#key, context(userId, issuer, 'refresh_token')) }
          : {}),
        scopes: row.scopes,
        ...(row.expiresAt ? { expiresAt: row.expiresAt } : {}),
      };
    } catch {
      return undefined;
    }
  }
}

function context(userId: string, issuer: string, kind: string): string {
  return `upstream-token\n${issuer}\n${userId}\n${kind}`;
}
