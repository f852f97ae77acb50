import { SECURITY_EVENT_TYPES, SecurityEventRepository } from '@portcullis/authorization';
import type { AdminCommand } from './admin-command.js';

const UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** `30m`, `1h`, `7d`: a duration in seconds; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,6})([smhd])$/.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * (UNITS[match[2] ?? ''] ?? 0);
}

/** `events [--since 1h] [--type T ...]`: the security events, oldest first (1,000 at most). */
export const EVENT_COMMANDS: Readonly<Record<string, AdminCommand>> = {
  async events(context) {
    const since = parseDuration(context.values.since ?? '24h');
    if (since === undefined) return context.fail('--since takes a duration such as 30m, 1h or 7d', 2);
    const types = context.values.type ?? [];
    const unknown = types.filter((type) => !(SECURITY_EVENT_TYPES as readonly string[]).includes(type));
    if (unknown.length > 0) {
      return context.fail(
        `unknown event type ${unknown.join(', ')}; one of ${SECURITY_EVENT_TYPES.join(', ')}`,
        2,
      );
    }
    const rows = await new SecurityEventRepository(context.prisma).list(
      new Date(Date.now() - since * 1000),
      types,
    );
    const events = rows.map((row) => ({
      at: row.at.toISOString(),
      type: row.type,
      ...(row.userId ? { user_id: row.userId } : {}),
      ...(row.clientId ? { client_id: row.clientId } : {}),
      ...(row.ip ? { ip: row.ip } : {}),
      ...(row.requestId ? { request_id: row.requestId } : {}),
      ...(row.detail !== null ? { detail: row.detail } : {}),
    }));
    context.print(
      events
        .map((event) =>
          [
            event.at,
            event.type,
            event.user_id ? `user ${event.user_id}` : '',
            event.client_id ? `client ${event.client_id}` : '',
            event.ip ? `from ${event.ip}` : '',
            event.detail ? JSON.stringify(event.detail) : '',
          ]
            .filter((part) => part !== '')
            .join('  '),
        )
        .join('\n') || `no security events in the last ${context.values.since ?? '24h'}`,
      events,
    );
    return 0;
  },
};
