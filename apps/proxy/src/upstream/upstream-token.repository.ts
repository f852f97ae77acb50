import { Inject, Injectable } from '@nestjs/common';
import { open, seal } from '@portcullis/authorization';
import { PrismaClient } from '@portcullis/persistence';
import { SIGN_IN_CONNECTION } from '../connections/connections.env.js';
import { PROXY_OPTIONS, type ProxyOptions } from '../proxy.options.js';

export { SIGN_IN_CONNECTION };

/** Tokens an upstream issued, as the vault stores them. */
export interface UpstreamTokenSet {
  readonly accessToken: string;
  readonly refreshToken?: string;
  readonly scopes: readonly string[];
  readonly expiresAt?: Date;
}

/** One user's connection, opened: its tokens, or why it has none. */
export type StoredConnection =
  | ({ readonly live: true; readonly issuer: string } & UpstreamTokenSet)
  /**
   * The user must connect again: the provider refused to refresh it (`invalid_grant`) at `since`; or
   * (`providerChanged`) the connection now names another provider than the one that issued its tokens, which are
   * then neither used nor sent anywhere (not to the new provider's token or revocation endpoint).
   */
  | { readonly live: false; readonly issuer: string; readonly since: Date; readonly providerChanged?: true };

/** One of a user's connections as the account page lists it: what it is and how it stands, never its tokens. */
export interface ConnectionSummary {
  readonly connection: string;
  readonly issuer: string;
  readonly scopes: readonly string[];
  readonly lastUsedAt?: Date;
  /** When the provider refused to refresh it: the user must connect again. */
  readonly reconnectRequiredAt?: Date;
  /**
   * Whether it holds an access token still it can use: not once the provider refused a refresh, nor when the
   * connection now names another provider (`providerChanged`).
   */
  readonly hasTokens: boolean;
  /** The connection now names another provider than the one that issued its tokens: the user must connect again. */
  readonly providerChanged?: true;
}

/** Another instance held the connection's refresh lock for longer than the upstream timeout. */
export class RefreshLockTimeout extends Error {
  constructor(connection: string, options?: { cause?: unknown }) {
    super(`the refresh of ${connection} by another instance did not end in time`, options);
    this.name = 'RefreshLockTimeout';
  }
}

/** What `UpstreamTokens.refreshLocked`'s `refresh` decides under the lock. */
export type RefreshOutcome =
  | { readonly kind: 'refreshed'; readonly tokens: UpstreamTokenSet }
  | { readonly kind: 'lost' }
  | { readonly kind: 'unchanged' };

interface SealedTokens {
  readonly accessToken: string;
  readonly refreshToken: string | null;
  readonly scopes: string[];
  readonly expiresAt: Date | null;
}

interface TokenRow {
  readonly issuer: string;
  readonly provider: string | null;
  readonly accessToken: string | null;
  readonly refreshToken: string | null;
  readonly scopes: readonly string[];
  readonly expiresAt: Date | null;
  readonly reconnectRequiredAt: Date | null;
}

/**
 * The rows of the proxy's token vault: the tokens each user's connection holds, sealed with AES-256-GCM under the
 * proxy's key and bound (as associated data) to the user and the issuer, so a row copied to another user does not
 * open. They serve the proxy's own server-side calls and RFC 8693 exchanges by registered resource servers; no
 * endpoint returns them to a client.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#token-passthrough
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.10
 */
@Injectable()
export class UpstreamTokens {
  readonly #key: Uint8Array;
  readonly #options: ProxyOptions;

  constructor(
    private readonly prisma: PrismaClient,
    @Inject(PROXY_OPTIONS) options: ProxyOptions,
  ) {
    this.#key = options.sealingKey;
    this.#options = options;
  }

  /**
   * The provider a connection names now: its issuer as configured (`UPSTREAM_ISSUER`, `CONNECTIONS.<name>.issuer`,
   * or the preset's); undefined for a connection no longer configured.
   */
  #provider(connection: string): string | undefined {
    return connection === SIGN_IN_CONNECTION
      ? this.#options.upstream.issuer
      : this.#options.connections.get(connection)?.issuer;
  }

  /**
   * Whether a row's tokens come from another provider than the one its connection names now (an operator pointed the
   * connection elsewhere). A row stored before the vault recorded its provider (null) cannot tell, and counts as the
   * same provider.
   */
  #providerChanged(connection: string, stored: string | null): boolean {
    if (stored === null) return false;
    const now = this.#provider(connection);
    return now !== undefined && now !== stored;
  }

  /** Replaces the user's tokens of `connection` with the ones of a sign-in or a connect; the connection is live. */
  async store(userId: string, connection: string, issuer: string, tokens: UpstreamTokenSet): Promise<void> {
    const data = {
      issuer,
      provider: this.#provider(connection) ?? null,
      ...this.#sealed(userId, issuer, tokens),
      reconnectRequiredAt: null,
    };
    await this.prisma.upstreamToken.upsert({
      where: { userId_connection: { userId, connection } },
      create: { userId, connection, ...data },
      update: data,
    });
  }

  /**
   * The user's connection, opened; undefined when there is none, or when its tokens no longer open (sealed under
   * another key, such as the per-process key of a development run without secrets, or copied from another user).
   */
  async find(userId: string, connection: string): Promise<StoredConnection | undefined> {
    const row = await this.prisma.upstreamToken.findUnique({
      where: { userId_connection: { userId, connection } },
    });
    return row ? this.#open(userId, connection, row) : undefined;
  }

  /** Every connection of the user, the sign-in provider's first, then by name; the tokens stay sealed and unread. */
  async connections(userId: string): Promise<ConnectionSummary[]> {
    const rows = await this.prisma.upstreamToken.findMany({
      where: { userId },
      select: {
        connection: true,
        issuer: true,
        provider: true,
        scopes: true,
        lastUsedAt: true,
        reconnectRequiredAt: true,
        accessToken: true,
      },
      orderBy: { connection: 'asc' },
    });
    return rows
      .map((row) => {
        const providerChanged = this.#providerChanged(row.connection, row.provider);
        return {
          connection: row.connection,
          issuer: row.issuer,
          scopes: row.scopes,
          ...(row.lastUsedAt ? { lastUsedAt: row.lastUsedAt } : {}),
          ...(row.reconnectRequiredAt ? { reconnectRequiredAt: row.reconnectRequiredAt } : {}),
          hasTokens: row.accessToken !== null && !providerChanged,
          ...(providerChanged ? { providerChanged } : {}),
        };
      })
      .sort(
        (a, b) => Number(b.connection === SIGN_IN_CONNECTION) - Number(a.connection === SIGN_IN_CONNECTION),
      );
  }

  /** Records that the connection was used now (for the account page). */
  async touch(userId: string, connection: string, at = new Date()): Promise<void> {
    await this.prisma.upstreamToken.updateMany({
      where: { userId, connection },
      data: { lastUsedAt: at },
    });
  }

  /**
   * Runs `refresh` holding the connection's row lock (`SELECT ... FOR UPDATE`), so that one refresh at a time runs
   * per user and connection across every instance on the database: a second caller waits, then sees the tokens the
   * first one stored. `refresh` gets the connection as it is under the lock and says what to store: new tokens
   * (a rotated refresh token replaces the old one), the connection lost (its tokens erased, the user must connect
   * again), or nothing. A caller waits for the lock at most `timeoutMs` (PostgreSQL's `lock_timeout`; then
   * {@link RefreshLockTimeout}) and `refresh` must end within `timeoutMs` too, so a refresh the provider answered
   * always has the time to be stored: a rotated refresh token is never lost to the transaction's deadline.
   */
  async refreshLocked(
    userId: string,
    connection: string,
    timeoutMs: number,
    refresh: (current: StoredConnection | undefined) => Promise<RefreshOutcome>,
  ): Promise<StoredConnection | undefined> {
    return this.prisma.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
        let rows: TokenRow[];
        try {
          rows = await tx.$queryRaw<TokenRow[]>`
          SELECT issuer, provider, access_token AS "accessToken", refresh_token AS "refreshToken", scopes,
                 expires_at AS "expiresAt", reconnect_required_at AS "reconnectRequiredAt"
          FROM upstream_tokens
          WHERE user_id = ${userId}::uuid AND connection = ${connection}
          FOR UPDATE`;
        } catch (error) {
          // 55P03 lock_not_available: another instance's refresh is still running.
          if (JSON.stringify(error ?? '').includes('55P03') || /lock timeout/i.test(String(error))) {
            throw new RefreshLockTimeout(connection, { cause: error });
          }
          throw error;
        }
        const [row] = rows;
        const current = row ? this.#open(userId, connection, row) : undefined;
        const outcome = await refresh(current);
        if (!row || outcome.kind === 'unchanged') return current;
        const where = { userId_connection: { userId, connection } };
        if (outcome.kind === 'lost') {
          const since = new Date();
          await tx.upstreamToken.update({
            where,
            data: { accessToken: null, refreshToken: null, expiresAt: null, reconnectRequiredAt: since },
          });
          return { live: false, issuer: row.issuer, since };
        }
        const kept = current?.live ? current.refreshToken : undefined;
        const next = {
          ...outcome.tokens,
          ...((outcome.tokens.refreshToken ?? kept)
            ? { refreshToken: outcome.tokens.refreshToken ?? kept }
            : {}),
        };
        await tx.upstreamToken.update({
          where,
          data: { ...this.#sealed(userId, row.issuer, next), lastUsedAt: new Date() },
        });
        return { live: true, issuer: row.issuer, ...next };
      },
      // Waiting for a pool connection, then for the lock, then the provider: each bounded by `timeoutMs`.
      { maxWait: timeoutMs, timeout: 2 * timeoutMs + 2_000 },
    );
  }

  /** Forgets the user's connection and its tokens; true when there was one. */
  async remove(userId: string, connection: string): Promise<boolean> {
    const { count } = await this.prisma.upstreamToken.deleteMany({ where: { userId, connection } });
    return count > 0;
  }

  #sealed(userId: string, issuer: string, tokens: UpstreamTokenSet): SealedTokens {
    return {
      accessToken: seal(tokens.accessToken, this.#key, context(userId, issuer, 'access_token')),
      refreshToken: tokens.refreshToken
        ? seal(tokens.refreshToken, this.#key, context(userId, issuer, 'refresh_token'))
        : null,
      scopes: [...tokens.scopes],
      expiresAt: tokens.expiresAt ?? null,
    };
  }

  #open(userId: string, connection: string, row: TokenRow): StoredConnection | undefined {
    const { issuer } = row;
    if (this.#providerChanged(connection, row.provider)) {
      return { live: false, issuer, since: row.reconnectRequiredAt ?? new Date(0), providerChanged: true };
    }
    if (row.reconnectRequiredAt || !row.accessToken) {
      return { live: false, issuer, since: row.reconnectRequiredAt ?? new Date(0) };
    }
    try {
      return {
        live: true,
        issuer,
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
