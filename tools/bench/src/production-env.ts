/**
 * The apps run as in production (no pretty logs, production rules), on loopback: the variables production requires
 * are given, and the two development defaults the bench means on purpose are said so (an http loopback issuer, one
 * instance without Redis).
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_RESOURCES } from '@portcullis/authorization';

export function productionEnv(): Record<string, string> {
  return {
    NODE_ENV: 'production',
    METRICS_TOKEN: randomBytes(16).toString('base64url'),
    ALLOW_LOOPBACK_ISSUER: 'true',
    SINGLE_INSTANCE: 'true',
    // The development default, named: an authorization server needs its resources set in production.
    RESOURCES: JSON.stringify(DEFAULT_RESOURCES),
  };
}
