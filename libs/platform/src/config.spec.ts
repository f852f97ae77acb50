import { describe, expect, it } from '@jest/globals';
import {
  baseEnvSchema,
  checkBaseEnv,
  checkProductionEnv,
  ConfigError,
  databaseTargetFromEnv,
  parseEnv,
} from './config.js';

const schema = baseEnvSchema({ port: 4000 });

describe('parseEnv', () => {
  it('applies the defaults to an empty environment', () => {
    const env = parseEnv(schema, {});
    expect(env).toMatchObject({ HOST: 'localhost', PORT: 4000, LOG_LEVEL: 'info', NODE_ENV: 'development' });
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it('reads TRUST_PROXY as a list of addresses and CIDR ranges', () => {
    expect(parseEnv(schema, { TRUST_PROXY: '10.0.0.0/8, 192.0.2.1,::1' }).TRUST_PROXY).toEqual([
      '10.0.0.0/8',
      '192.0.2.1',
      '::1',
    ]);
    expect(parseEnv(schema, {}).TRUST_PROXY).toBeUndefined();
  });

  it('treats an empty variable as unset', () => {
    expect(parseEnv(schema, { PORT: '', DATABASE_URL: '' })).toMatchObject({
      PORT: 4000,
      DATABASE_URL: undefined,
    });
  });

  it.each([
    [{ PORT: 'abc' }, 'invalid configuration: PORT must be a number'],
    [{ PORT: '4000.5' }, 'invalid configuration: PORT must be a whole number'],
    [{ PORT: '-1' }, 'invalid configuration: PORT must be from 0 to 65535'],
    [
      { DATABASE_URL: 'not a url' },
      'invalid configuration: DATABASE_URL must be a postgresql://user:password@host:port/database URL',
    ],
    [
      { DATABASE_URL: 'mysql://h/db' },
      'invalid configuration: DATABASE_URL must be a postgresql://user:password@host:port/database URL',
    ],
    [
      { TRUST_PROXY: '10.0.0.1, haproxy' },
      'invalid configuration: TRUST_PROXY must be IP addresses or CIDR ranges, comma-separated (not "haproxy")',
    ],
    [
      { TRUST_PROXY: '10.0.0.0/33' },
      'invalid configuration: TRUST_PROXY must be IP addresses or CIDR ranges, comma-separated (not "10.0.0.0/33")',
    ],
  ])('rejects %j with one line naming the variable', (env, message) => {
    expect(() => parseEnv(schema, env)).toThrow(new ConfigError(message));
  });

  it('names every bad variable in the one line', () => {
    expect(() => parseEnv(schema, { PORT: 'x', LOG_LEVEL: 'loud' })).toThrow(
      /^invalid configuration: PORT must be a number; LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent$/,
    );
  });

  it('never echoes the value of a bad DATABASE_URL, which may hold a password', () => {
    expect(() => parseEnv(schema, { DATABASE_URL: 'mysql://u:hunter2@h/db' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });
});

describe('checkBaseEnv', () => {
  it('refuses production with /metrics open: METRICS_TOKEN is required, or METRICS=off', () => {
    expect(() => checkBaseEnv(parseEnv(schema, { NODE_ENV: 'production' }))).toThrow(
      'invalid configuration: METRICS_TOKEN is required in production (or set METRICS=off)',
    );
    expect(() =>
      checkBaseEnv(parseEnv(schema, { NODE_ENV: 'production', METRICS_TOKEN: 'a'.repeat(24) })),
    ).not.toThrow();
    expect(() => checkBaseEnv(parseEnv(schema, { NODE_ENV: 'production', METRICS: 'off' }))).not.toThrow();
  });

  it('refuses to keep more connections open than the pool holds', () => {
    expect(() => checkBaseEnv(parseEnv(schema, { DATABASE_POOL_SIZE: '5', DATABASE_POOL_MIN: '6' }))).toThrow(
      'invalid configuration: DATABASE_POOL_MIN (6) must be at most DATABASE_POOL_SIZE (5)',
    );
    expect(() =>
      checkBaseEnv(parseEnv(schema, { DATABASE_POOL_SIZE: '5', DATABASE_POOL_MIN: '5' })),
    ).not.toThrow();
    // Unset, it keeps 4 or the whole pool when that is smaller (libs/persistence/src/database.ts).
    expect(parseEnv(schema, { DATABASE_POOL_SIZE: '2' }).DATABASE_POOL_MIN).toBeUndefined();
    expect(() => parseEnv(schema, { DATABASE_POOL_MIN: '-1' })).toThrow('DATABASE_POOL_MIN');
    // Blanks are unset (the default applies), not zero; anything but a whole number is refused.
    expect(parseEnv(schema, { DATABASE_POOL_MIN: ' ' }).DATABASE_POOL_MIN).toBeUndefined();
    expect(parseEnv(schema, { DATABASE_POOL_MIN: ' 3 ' }).DATABASE_POOL_MIN).toBe(3);
    for (const bad of ['1.5', '0x10', '1e2', 'four']) {
      expect(() => parseEnv(schema, { DATABASE_POOL_MIN: bad })).toThrow('DATABASE_POOL_MIN');
    }
  });

  it('leaves /metrics open in development', () => {
    expect(() => checkBaseEnv(parseEnv(schema, {}))).not.toThrow();
  });

  it('refuses a METRICS_TOKEN shorter than 16 characters, without echoing it', () => {
    expect(() => parseEnv(schema, { METRICS_TOKEN: 'short-secret' })).toThrow(
      'invalid configuration: METRICS_TOKEN must be at least 16 characters (e.g. `openssl rand -base64 24`)',
    );
  });
});

describe('databaseTargetFromEnv', () => {
  it('uses PostgreSQL when DATABASE_URL is set', () => {
    const env = parseEnv(schema, { DATABASE_URL: 'postgresql://u@db:5432/portcullis' });
    expect(databaseTargetFromEnv(env, 'authorization-server')).toEqual({
      url: 'postgresql://u@db:5432/portcullis',
    });
  });

  it('defaults to an embedded database under .data/<app> of the working directory', () => {
    expect(databaseTargetFromEnv(parseEnv(schema, {}), 'proxy', '/srv/portcullis')).toEqual({
      pgliteDir: '/srv/portcullis/.data/proxy',
    });
  });

  it('honours PGLITE_DIR, relative or absolute', () => {
    expect(databaseTargetFromEnv(parseEnv(schema, { PGLITE_DIR: 'db' }), 'proxy', '/srv')).toEqual({
      pgliteDir: '/srv/db',
    });
    expect(databaseTargetFromEnv(parseEnv(schema, { PGLITE_DIR: '/var/db' }), 'proxy', '/srv')).toEqual({
      pgliteDir: '/var/db',
    });
  });
});

describe('checkProductionEnv: production never starts on a development default', () => {
  const requirements = [
    { name: 'ISSUER', why: 'the development default is a localhost URL' },
    { name: 'REDIS_URL', why: 'rate limits are shared through it', unless: 'SINGLE_INSTANCE' },
  ];
  const production = { NODE_ENV: 'production' } as const;

  it('names every variable left to its default, and how to keep it on purpose where there is a way', () => {
    expect(() =>
      checkProductionEnv({ NODE_ENV: 'production', ISSUER: '' }, production, requirements),
    ).toThrow(
      new ConfigError(
        'invalid configuration: DATABASE_URL is required in production (without it the data lives in an embedded ' +
          'database in the working directory; or set ALLOW_EMBEDDED_DATABASE=true); ISSUER is required in production ' +
          '(the development default is a localhost URL); REDIS_URL is required in production (rate limits are ' +
          'shared through it; or set SINGLE_INSTANCE=true)',
      ),
    );
  });

  it('accepts the variables set, or the development default said to be meant', () => {
    const env = { DATABASE_URL: 'postgresql://db/x', ISSUER: 'https://as.example', REDIS_URL: 'redis://r' };
    expect(() => checkProductionEnv(env, production, requirements)).not.toThrow();
    expect(() =>
      checkProductionEnv(
        { ISSUER: 'https://as.example', ALLOW_EMBEDDED_DATABASE: 'true', SINGLE_INSTANCE: 'true' },
        production,
        requirements,
      ),
    ).not.toThrow();
    expect(() =>
      checkProductionEnv(
        { ISSUER: 'https://as.example', SINGLE_INSTANCE: 'false' },
        production,
        requirements,
      ),
    ).toThrow(/DATABASE_URL is required.*REDIS_URL is required/);
  });

  it('says what is wrong with a value set that production cannot run on', () => {
    const issuer = {
      name: 'ISSUER',
      why: 'the development default is a localhost URL',
      invalid: (value: string) => (value.startsWith('https:') ? undefined : 'must be https in production'),
    };
    const env = { DATABASE_URL: 'postgresql://db/x', ISSUER: 'http://127.0.0.1:4000' };
    expect(() => checkProductionEnv(env, production, [issuer])).toThrow(
      'invalid configuration: ISSUER must be https in production',
    );
    expect(() =>
      checkProductionEnv({ ...env, ISSUER: 'https://as.example' }, production, [issuer]),
    ).not.toThrow();
  });

  it('asks nothing in development', () => {
    expect(() => checkProductionEnv({}, { NODE_ENV: 'development' }, requirements)).not.toThrow();
  });
});
