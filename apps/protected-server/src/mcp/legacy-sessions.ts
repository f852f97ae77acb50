/**
 * The 2025-era (session-based) MCP sessions, each bound to the user (token issuer and subject) that opened it.
 *
 * Rules kept here:
 * - Our choice, for real clients (the official MCP TypeScript SDK keeps one session across a token change): a
 *   session is bound to the user (issuer and `sub`), not to a token, so a client keeps its session across step-up
 *   and refresh; every request is still authenticated on its own by the bearer guard.
 * - A session id presented with another user's token is answered exactly like an unknown one (404), so session ids
 *   are useless to anyone but their owner.
 * - Sessions are bounded in number and idle time; the least recently used is closed first.
 */
import type { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { sameOwner, type Owner } from '../notes/owner.js';

export interface LegacySession {
  readonly id: string;
  readonly owner: Owner;
  readonly server: McpServer;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
}

export interface LegacySessionLimits {
  readonly maxSessions: number;
  readonly idleTimeoutMs: number;
}

/** Live 2025-era sessions, in least-recently-used order. */
export class LegacySessionRegistry {
  // Map order is insertion order; touching a session re-inserts it, so the first entry is the least recently used.
  readonly #sessions = new Map<string, LegacySession>();

  constructor(private readonly limits: LegacySessionLimits) {}

  get size(): number {
    return this.#sessions.size;
  }

  /** The session, when it exists and belongs to `owner`; marks it as used. */
  get(id: string, owner: Owner): LegacySession | undefined {
    this.closeIdle();
    const session = this.#sessions.get(id);
    if (!session || !sameOwner(session.owner, owner)) return undefined;
    session.lastSeen = Date.now();
    this.#sessions.delete(id);
    this.#sessions.set(id, session);
    return session;
  }

  add(session: LegacySession): void {
    this.closeIdle();
    this.#sessions.set(session.id, session);
    while (this.#sessions.size > this.limits.maxSessions) {
      const [oldest] = this.#sessions.values();
      if (oldest) this.close(oldest);
    }
  }

  /** Forgets a session its transport already closed. */
  remove(id: string): void {
    this.#sessions.delete(id);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((session) => this.close(session)));
  }

  private closeIdle(): void {
    const cutoff = Date.now() - this.limits.idleTimeoutMs;
    for (const session of this.#sessions.values()) {
      if (session.lastSeen > cutoff) break;
      void this.close(session);
    }
  }

  private async close(session: LegacySession): Promise<void> {
    this.#sessions.delete(session.id);
    await session.transport.close().catch(() => undefined);
    await session.server.close().catch(() => undefined);
  }
}
