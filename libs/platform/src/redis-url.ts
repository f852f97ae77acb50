// Rules kept: `redis://` and `rediss://` URLs as the IANA-registered schemes define them (one server); and, for a
// Redis watched by Sentinel, `redis+sentinel://` naming the sentinels and the master: the clients ask a sentinel
// where the master is, and again after a failover, instead of holding one address that a failover makes wrong.

/** The port a sentinel listens on unless the URL says otherwise. */
export const DEFAULT_SENTINEL_PORT = 26379;

/** What a `REDIS_URL` must be, for a schema's error message. */
export const REDIS_URL_FORMAT =
  'must be a redis:// or rediss:// URL, or redis+sentinel://host:port,host:port/master-name';

const SENTINEL_SCHEME = 'redis+sentinel://';

/** One sentinel's address. */
export interface SentinelAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * The connection options of a Redis found through Sentinel, in the shape ioredis takes them (`new Redis(options)`):
 * the sentinels, the master's name, and the master's own credentials and database. A failover is followed when the
 * master's connection closes (a master that is killed, or demoted: Sentinel makes a demoted master close its clients'
 * connections): the client asks the sentinels again. Not ioredis's `failoverDetector`, whose disconnection on
 * `+switch-master` can land while the client is reconnecting, and then ends the client for good (ioredis 5.11).
 */
export interface RedisSentinelOptions {
  readonly sentinels: SentinelAddress[];
  readonly name: string;
  readonly username?: string;
  readonly password?: string;
  readonly db?: number;
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function sentinelAddress(text: string): SentinelAddress | undefined {
  if (text === '' || /[/?#@]/.test(text)) return undefined;
  let url: URL;
  try {
    url = new URL(`redis://${text}`);
  } catch {
    return undefined;
  }
  if (url.hostname === '') return undefined;
  // An IPv6 literal comes back bracketed ("[::1]"); a socket takes it bare.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, port: url.port === '' ? DEFAULT_SENTINEL_PORT : Number(url.port) };
}

/**
 * Reads `redis+sentinel://[[username]:password@]host[:port][,host[:port]...]/master-name[/db]`: the sentinels
 * (port 26379 unless given), the name they monitor the master under, and the master's credentials and database
 * number. `undefined` for any other URL (a `redis://` or `rediss://` URL is used as it is) and for a malformed one.
 *
 * @see https://redis.io/docs/latest/operate/oss_and_stack/management/sentinel/#sentinel-clients-implementation
 */
export function redisSentinelOptions(value: string): RedisSentinelOptions | undefined {
  if (!value.startsWith(SENTINEL_SCHEME)) return undefined;
  const rest = value.slice(SENTINEL_SCHEME.length);
  const slash = rest.indexOf('/');
  if (slash < 0) return undefined;
  const authority = rest.slice(0, slash);
  const path = rest.slice(slash + 1);
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at) : undefined;
  const sentinels = authority
    .slice(at + 1)
    .split(',')
    .map(sentinelAddress);
  if (sentinels.length === 0 || sentinels.some((address) => address === undefined)) return undefined;

  if (/[?#]/.test(path)) return undefined;
  const [encodedName = '', database, ...beyond] = path.split('/');
  const name = decode(encodedName);
  if (!name || beyond.length > 0) return undefined;
  let db: number | undefined;
  if (database !== undefined) {
    if (!/^\d{1,5}$/.test(database)) return undefined;
    db = Number(database);
  }

  let username: string | undefined;
  let password: string | undefined;
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(':');
    username = decode(colon >= 0 ? userinfo.slice(0, colon) : userinfo);
    password = colon >= 0 ? decode(userinfo.slice(colon + 1)) : undefined;
    if (username === undefined || (colon >= 0 && password === undefined)) return undefined;
  }
  return {
    sentinels: sentinels as SentinelAddress[],
    name,
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    ...(db !== undefined ? { db } : {}),
  };
}

/** Whether `value` is a `REDIS_URL` the apps can connect with: see {@link REDIS_URL_FORMAT}. */
export function isRedisUrl(value: string): boolean {
  if (value.startsWith(SENTINEL_SCHEME)) return redisSentinelOptions(value) !== undefined;
  try {
    return ['redis:', 'rediss:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
