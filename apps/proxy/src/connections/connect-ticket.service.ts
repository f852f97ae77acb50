import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { open, seal, type ClientRepository } from '@portcullis/authorization';
import { PrismaClient } from '@portcullis/persistence';
import { z } from 'zod';
import { PROXY_OPTIONS, type ProxyOptions } from '../proxy.options.js';
import { SIGN_IN_CONNECTION } from './connections.env.js';

/**
 * How long a connect link is valid: 10 minutes, as long as an upstream sign-in may take (the upstream `state`'s
 * lifetime), short enough that a link seen in a log or a chat later is dead.
 */
export const CONNECT_TICKET_TTL_SECONDS = 600;

/** The associated data every ticket is sealed with, so that no other value the proxy seals opens as a ticket. */
const CONTEXT = 'connect-ticket';

/** The `used_jwt_ids` namespace of tickets used up. */
const USED_NAMESPACE = 'connect-ticket:';

/** A ticket's sealed content: compact, since it travels in a URL. */
const PayloadSchema = z.object({
  /** The local user the link is for. */
  sub: z.string().min(1),
  /** The connection to connect. */
  connection: z.string().min(1),
  /** The resource server whose exchange was refused, to name it on the pages. */
  client_id: z.string().min(1).optional(),
  jti: z.string().min(1),
  /** Seconds since the epoch. */
  exp: z.number().int(),
});

/** The path of `connection`'s connect link under the issuer: `connections/<connection>/connect`. */
export function connectPath(connection: string): string {
  return `connections/${encodeURIComponent(connection)}/connect`;
}

/**
 * The path of the callback `connection`'s provider redirects back to, under the issuer: `upstream/callback` for the
 * sign-in provider, `connections/<connection>/callback` for any other (a redirect URI per provider: RFC 9700 4.4.2).
 */
export function connectionCallbackPath(connection: string): string {
  return connection === SIGN_IN_CONNECTION
    ? 'upstream/callback'
    : `connections/${encodeURIComponent(connection)}/callback`;
}

/** What a connect ticket says, once opened. */
export interface ConnectTicket {
  readonly userId: string;
  readonly connection: string;
  readonly clientId?: string;
  /** Random, 128 bits: what using the ticket up records. */
  readonly jti: string;
  readonly expiresAt: Date;
}

/** What {@link ConnectTickets.read} found. */
export type TicketReading =
  | { readonly outcome: 'valid'; readonly ticket: ConnectTicket }
  /** Not a ticket of this proxy (another key, tampered with, or not a ticket at all). */
  | { readonly outcome: 'invalid' }
  | { readonly outcome: 'expired' }
  | { readonly outcome: 'used' };

/**
 * Connect tickets: the one-time, short-lived link a user follows to connect a connection again when an RFC 8693
 * exchange was refused because the user has no live connection. A ticket is sealed with the proxy's key (AES-256-GCM,
 * so it cannot be forged or altered) and names the user it was issued for: the connect step only completes for a
 * person whose upstream sign-in is that user's, so a link forwarded to, or intercepted by, someone else connects
 * nothing (MCP URL-mode elicitation: the server verifies that the user who completes the out-of-band step is the one
 * who was asked). Used up once, by its `jti`, shared by every instance.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 * @see https://www.rfc-editor.org/rfc/rfc7519#section-4.1.7 (a `jti` to prevent replay)
 */
@Injectable()
export class ConnectTickets {
  readonly #key: Uint8Array;

  constructor(
    private readonly prisma: PrismaClient,
    @Inject(PROXY_OPTIONS) options: ProxyOptions,
  ) {
    this.#key = options.sealingKey;
  }

  /** A sealed ticket for `userId` to connect `connection`, valid {@link CONNECT_TICKET_TTL_SECONDS} from `now`. */
  issue(
    grant: { readonly userId: string; readonly connection: string; readonly clientId?: string },
    now = Date.now(),
  ): string {
    const payload: z.infer<typeof PayloadSchema> = {
      sub: grant.userId,
      connection: grant.connection,
      ...(grant.clientId ? { client_id: grant.clientId } : {}),
      jti: randomBytes(16).toString('base64url'),
      exp: Math.floor(now / 1000) + CONNECT_TICKET_TTL_SECONDS,
    };
    return seal(JSON.stringify(payload), this.#key, CONTEXT);
  }

  /** Opens `sealed` and says whether it can still be used at `now`; it is not used up here. */
  async read(sealed: string, now = Date.now()): Promise<TicketReading> {
    let payload: z.infer<typeof PayloadSchema>;
    try {
      payload = PayloadSchema.parse(JSON.parse(open(sealed, this.#key, CONTEXT)));
    } catch {
      return { outcome: 'invalid' };
    }
    if (payload.exp * 1000 <= now) return { outcome: 'expired' };
    const used = await this.prisma.usedJwtId.findUnique({
      where: { issuer_jti: { issuer: USED_NAMESPACE, jti: payload.jti } },
    });
    if (used) return { outcome: 'used' };
    return {
      outcome: 'valid',
      ticket: {
        userId: payload.sub,
        connection: payload.connection,
        ...(payload.client_id ? { clientId: payload.client_id } : {}),
        jti: payload.jti,
        expiresAt: new Date(payload.exp * 1000),
      },
    };
  }

  /** Uses `ticket` up; true only for the first caller (a replay, concurrent or later, gets false). */
  async useUp(ticket: ConnectTicket): Promise<boolean> {
    // Kept until the ticket expires (then housekeeping removes the row; the ticket is refused as expired).
    const { count } = await this.prisma.usedJwtId.createMany({
      data: [{ issuer: USED_NAMESPACE, jti: ticket.jti, expiresAt: ticket.expiresAt }],
      skipDuplicates: true,
    });
    return count === 1;
  }
}

/**
 * The name of the resource server whose refused exchange issued `ticket`, as its operator registered it, for the
 * pages to say which application asked; nothing when it has none (or is gone).
 */
export async function requestingApp(
  clients: ClientRepository,
  ticket: ConnectTicket,
): Promise<{ app?: string }> {
  const client = ticket.clientId ? await clients.find(ticket.clientId) : undefined;
  return client?.clientName ? { app: client.clientName } : {};
}
