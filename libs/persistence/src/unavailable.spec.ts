import { describe, expect, it } from '@jest/globals';
import { OAuthError } from '@portcullis/protocol';
import { DatabaseUnavailableError, isDatabaseUnavailable, translateDatabaseError } from './unavailable.js';

// The shapes below are what Prisma 7 with @prisma/adapter-pg and node-postgres were seen to throw when PostgreSQL
// went away (connections reset, new ones refused) in the fault tests of tools/faults.
describe('isDatabaseUnavailable', () => {
  it.each([
    [
      'Prisma P1001 (unreachable)',
      Object.assign(new Error("Can't reach database server"), {
        name: 'PrismaClientKnownRequestError',
        code: 'P1001',
      }),
    ],
    [
      'a raw query whose adapter could not reach the server (P2010 with DatabaseNotReachable)',
      Object.assign(new Error('Raw query failed'), {
        name: 'PrismaClientKnownRequestError',
        code: 'P2010',
        meta: { driverAdapterError: { cause: { kind: 'DatabaseNotReachable', host: '127.0.0.1' } } },
      }),
    ],
    [
      'a DriverAdapterError whose connection closed inside a transaction',
      Object.assign(new Error('ConnectionClosed'), {
        name: 'DriverAdapterError',
        cause: { kind: 'ConnectionClosed' },
      }),
    ],
    ['node-postgres losing its connection', new Error('Connection terminated unexpectedly')],
    [
      'a refused connection, as the adapter reports it',
      Object.assign(new Error('DriverAdapterError'), {
        name: 'DriverAdapterError',
        cause: { code: 'ECONNREFUSED' },
      }),
    ],
    [
      'the server shutting down (57P01)',
      Object.assign(new Error('DriverAdapterError'), {
        name: 'DriverAdapterError',
        cause: { kind: 'postgres', originalCode: '57P01' },
      }),
    ],
    [
      'a pool with no connection in time (P2024)',
      Object.assign(new Error('timed out'), { name: 'PrismaClientKnownRequestError', code: 'P2024' }),
    ],
    [
      'the cause of a wrapper',
      new Error('outer', {
        cause: Object.assign(new Error('x'), { name: 'PrismaClientKnownRequestError', code: 'P1017' }),
      }),
    ],
  ])('says yes to %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    [
      'a unique constraint violation (P2002)',
      Object.assign(new Error('Unique constraint'), { name: 'PrismaClientKnownRequestError', code: 'P2002' }),
    ],
    [
      'a syntax error (42601)',
      Object.assign(new Error('syntax'), {
        name: 'DriverAdapterError',
        cause: { kind: 'postgres', originalCode: '42601' },
      }),
    ],
    [
      'a protocol violation (08P01: a bug, not an outage)',
      Object.assign(new Error('bind'), {
        name: 'DriverAdapterError',
        cause: { kind: 'postgres', originalCode: '08P01' },
      }),
    ],
    [
      'an HTTP call of an extension that was refused',
      new Error('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      }),
    ],
    ['an error of the code', new TypeError('x is undefined')],
    ['nothing', undefined],
    ['a string', 'Connection terminated'],
  ])('says no to %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('translateDatabaseError', () => {
  it('makes an outage a 503 temporarily_unavailable with Retry-After, keeping the cause', () => {
    const cause = Object.assign(new Error('x'), { name: 'PrismaClientKnownRequestError', code: 'P1001' });
    const translated = translateDatabaseError(cause);
    expect(translated).toBeInstanceOf(DatabaseUnavailableError);
    expect(translated).toBeInstanceOf(OAuthError);
    expect(translated).toMatchObject({ code: 'temporarily_unavailable', status: 503, cause });
    expect((translated as OAuthError).headers).toEqual({ 'retry-after': '5' });
  });

  it('leaves any other error as it is', () => {
    const error = new TypeError('x');
    expect(translateDatabaseError(error)).toBe(error);
  });
});
