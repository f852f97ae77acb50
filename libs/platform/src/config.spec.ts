import { describe, expect, it } from '@jest/globals';
import { baseEnvSchema, checkBaseEnv, ConfigError, databaseTargetFromEnv, parseEnv } from './config.js';

const schema = baseEnvSchema({ port: 4000 });

describe('parseEnv', () => {
  it('applies the defaults to an empty environment', () => {
    const env = parseEnv(schema, {});
    expect(env).toMatchObject({ HOST: 'localhost', PORT: 4000, LOG_LEVEL: 'info', NODE_ENV: 'development' });
    expect(env.DATABASE_URL).toBeUndefined();
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
