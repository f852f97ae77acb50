import { OAuthError } from '@portcullis/protocol';

/** Seconds a client is asked to wait before retrying while the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

// Prisma's codes for a database it cannot reach or use for now (P1001 unreachable, P1002 timed out, P1008 operation
// timed out, P1017 connection closed, P2024 no pooled connection in time, P2028 a transaction that could not start or
// was closed under it).
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
// The driver adapter's kinds for the same.
const ADAPTER_UNAVAILABLE = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TransactionAlreadyClosed',
]);
// Socket errors of the driver itself, before any adapter sees them.
const SOCKET_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);
// PostgreSQL SQLSTATEs: the connection exceptions of class 08 (not 08P01, a protocol violation: a bug), 57P01-57P03
// (the server shutting down, crashed, or not accepting connections yet), 53300 (too many connections), 25006 (a
// write reaching a standby after a failover).
const SQLSTATE_UNAVAILABLE = /^(0800[0134678]|57P0[123]|53300|25006)$/;
// node-postgres's own messages for a connection lost or never made.
const DRIVER_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
];

/**
 * Whether `error` (or anything in its `cause` chain) says the database cannot be reached or used for now, as
 * opposed to a statement it refused: what a request should answer with 503 and `Retry-After` rather than a 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  // Only what the database client threw: an extension's failed HTTP call (ECONNREFUSED too) is not a database
  // outage.
  if (!fromDatabaseClient(error)) return false;
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    if (typeof current !== 'object') return false;
    const candidate = current as {
      code?: unknown;
      kind?: unknown;
      originalCode?: unknown;
      message?: unknown;
      meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown; code?: unknown } } };
      cause?: unknown;
    };
    const { code } = candidate;
    if (typeof code === 'string') {
      if (PRISMA_UNAVAILABLE.has(code) || SOCKET_UNAVAILABLE.has(code) || SQLSTATE_UNAVAILABLE.test(code)) {
        return true;
      }
    }
    // A DriverAdapterError's cause is the adapter's own description of the failure.
    if (typeof candidate.kind === 'string' && ADAPTER_UNAVAILABLE.has(candidate.kind)) return true;
    if (typeof candidate.originalCode === 'string' && SQLSTATE_UNAVAILABLE.test(candidate.originalCode))
      return true;
    const adapter = candidate.meta?.driverAdapterError?.cause;
    if (adapter) {
      if (typeof adapter.kind === 'string' && ADAPTER_UNAVAILABLE.has(adapter.kind)) return true;
      for (const value of [adapter.originalCode, adapter.code]) {
        if (typeof value === 'string' && SQLSTATE_UNAVAILABLE.test(value)) return true;
      }
    }
    if (typeof candidate.message === 'string') {
      const { message } = candidate;
      if (DRIVER_MESSAGES.some((text) => message.includes(text))) return true;
    }
    current = candidate.cause;
  }
  return false;
}

const DATABASE_ERROR_NAMES = /^(PrismaClient\w*Error|DriverAdapterError)$/;

/** Whether `error`, or something in its `cause` chain, was thrown by Prisma, its driver adapter or node-postgres. */
function fromDatabaseClient(error: unknown): boolean {
  for (
    let current = error, depth = 0;
    typeof current === 'object' && current !== null && depth < 8;
    depth++
  ) {
    const candidate = current as { name?: unknown; message?: unknown; meta?: unknown; cause?: unknown };
    if (typeof candidate.name === 'string' && DATABASE_ERROR_NAMES.test(candidate.name)) return true;
    if (
      typeof candidate.meta === 'object' &&
      candidate.meta !== null &&
      'driverAdapterError' in candidate.meta
    ) {
      return true;
    }
    const { message } = candidate;
    if (typeof message === 'string' && DRIVER_MESSAGES.some((text) => message.includes(text))) return true;
    current = candidate.cause;
  }
  return false;
}

/**
 * The answer to a request that needs the database while it cannot be reached: `temporarily_unavailable` (503,
 * RFC 6749 4.1.2.1 and 5.2) with `Retry-After` (RFC 9110 10.2.3), the cause kept for the log, never sent.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-15.6.4
 */
export class DatabaseUnavailableError extends OAuthError {
  constructor(cause: unknown) {
    super('temporarily_unavailable', 'the service cannot reach its database; retry later', {
      cause,
      headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
    });
    this.name = 'DatabaseUnavailableError';
  }
}

/** `error` as a {@link DatabaseUnavailableError} when it says the database is unavailable, else unchanged. */
export function translateDatabaseError(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError || !isDatabaseUnavailable(error)) return error;
  return new DatabaseUnavailableError(error);
}
