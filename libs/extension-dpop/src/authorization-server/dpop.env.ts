// The environment variables of an authorization server that composes DPoP (RFC 9449) by `EXTENSIONS=dpop`, shared
// by every Portcullis authorization server (the authorization server and the proxy), so that one name means one thing
// in both: DPOP_REQUIRED (RFC 9449 5.2 for every client), DPOP_NONCE (RFC 9449 8), DPOP_NONCE_SECRET (the HMAC key
// of stateless nonces, the same on every instance), DPOP_PROOF_MAX_AGE (RFC 9449 11.1). Set without the extension,
// or a nonce secret without nonces, they would do nothing: the boot says so instead.
import { base64url } from 'jose';
import { z } from 'zod';
import type { Extension } from '@portcullis/extensions';
import { dpopExtension } from '../dpop.extension.js';
import { dpopNonces } from '../proof/dpop-nonce.js';
import type { DpopAuthorizationServerOptions } from './dpop.authorization-server.js';

/** The longest `DPOP_PROOF_MAX_AGE`: a proof is a one-request credential (RFC 9449 11.1, "on the order of seconds or minutes"). */
const MAX_PROOF_AGE = 300;

/** 32 bytes or more, base64url: the HMAC key of the stateless nonces. */
const NonceSecretSchema = z.string().transform((text, context) => {
  const bytes = /^[A-Za-z0-9_-]+$/.test(text) ? base64url.decode(text) : undefined;
  if (bytes === undefined || bytes.length < 32) {
    context.addIssue({
      code: 'custom',
      message: 'must be at least 32 bytes in base64url (openssl rand -base64 32 | tr "+/" "-_" | tr -d "=")',
    });
    return z.NEVER;
  }
  return bytes;
});

/**
 * The variables of `EXTENSIONS=dpop` on an authorization server (RFC 9449 DPoP at the token endpoint), for its
 * configuration schema. Unset, each takes its default; set without the extension, the boot stops (see
 * {@link checkDpopAuthorizationServerEnv}).
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-5
 */
export const dpopAuthorizationServerEnvFields = {
  /** `true`: every client must send a DPoP proof (RFC 9449 5.2 for all); default `false`. */
  DPOP_REQUIRED: z.enum(['true', 'false']).optional(),
  /** `on`: proofs must carry a server nonce (RFC 9449 8); default `off`. */
  DPOP_NONCE: z.enum(['on', 'off']).optional(),
  /** The nonce HMAC key instances share; random per process when unset. */
  DPOP_NONCE_SECRET: NonceSecretSchema.optional(),
  /** How far a proof's `iat` may be from now, in seconds; default 60. */
  DPOP_PROOF_MAX_AGE: z.coerce
    .number()
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1 second')
    .max(MAX_PROOF_AGE, `must be at most ${MAX_PROOF_AGE} seconds`)
    .optional(),
};

/** The parsed variables of {@link dpopAuthorizationServerEnvFields}. */
export type DpopAuthorizationServerEnv = z.output<z.ZodObject<typeof dpopAuthorizationServerEnvFields>>;

const DPOP_VARIABLES = ['DPOP_REQUIRED', 'DPOP_NONCE', 'DPOP_NONCE_SECRET', 'DPOP_PROOF_MAX_AGE'] as const;

/**
 * A DPoP variable without the extension, or a nonce secret without nonces, would do nothing: a refinement of the
 * app's schema that says so, naming the variable.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-8
 */
export function checkDpopAuthorizationServerEnv(
  env: DpopAuthorizationServerEnv & { readonly EXTENSIONS: readonly string[] },
  context: z.RefinementCtx,
): void {
  if (!env.EXTENSIONS.includes('dpop')) {
    for (const name of DPOP_VARIABLES) {
      if (env[name] !== undefined) {
        context.addIssue({
          code: 'custom',
          path: [name],
          message: 'is set but EXTENSIONS does not include dpop',
        });
      }
    }
    return;
  }
  if (env.DPOP_NONCE_SECRET !== undefined && env.DPOP_NONCE !== 'on') {
    context.addIssue({
      code: 'custom',
      path: ['DPOP_NONCE_SECRET'],
      message: 'is set but DPOP_NONCE is not on',
    });
  }
}

/**
 * Whether the nonces are keyed per process: instances behind one balancer then refuse each other's nonces.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-8
 */
export function dpopNoncesPerProcess(env: DpopAuthorizationServerEnv): boolean {
  return env.DPOP_NONCE === 'on' && env.DPOP_NONCE_SECRET === undefined;
}

/**
 * `io.modelcontextprotocol/dpop` on the authorization server side only, from {@link dpopAuthorizationServerEnvFields}:
 * the host checks proofs at its token endpoint and binds what it issues; it is neither a resource server nor a client.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-5
 */
export function dpopAuthorizationServerFromEnv(env: DpopAuthorizationServerEnv): Extension {
  const authorizationServer: DpopAuthorizationServerOptions = {
    required: env.DPOP_REQUIRED === 'true',
    ...(env.DPOP_PROOF_MAX_AGE !== undefined ? { maxAgeSeconds: env.DPOP_PROOF_MAX_AGE } : {}),
    ...(env.DPOP_NONCE === 'on'
      ? { nonces: dpopNonces(env.DPOP_NONCE_SECRET ? { secret: env.DPOP_NONCE_SECRET } : {}) }
      : {}),
  };
  return dpopExtension({ authorizationServer, resourceServer: false, client: false });
}
