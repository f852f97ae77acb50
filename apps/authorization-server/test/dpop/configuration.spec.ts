import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, parseEnv } from '@portcullis/platform';
import { envSchema } from '../../src/env.schema.js';

/** The boot's answer to `env`: the configuration error's message, or undefined when it boots. */
function refusal(env: Record<string, string>): string | undefined {
  try {
    parseEnv(envSchema, env);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
}

describe('the DPoP configuration (EXTENSIONS=dpop)', () => {
  it('boots with the defaults, and with every variable set right', () => {
    expect(refusal({ EXTENSIONS: 'dpop' })).toBeUndefined();
    expect(
      refusal({
        EXTENSIONS: 'dpop',
        DPOP_REQUIRED: 'true',
        DPOP_NONCE: 'on',
        DPOP_NONCE_SECRET: randomBytes(32).toString('base64url'),
        DPOP_PROOF_MAX_AGE: '300',
      }),
    ).toBeUndefined();
  });

  it.each<[string, Record<string, string>, RegExp]>([
    ['DPOP_REQUIRED other than true or false', { DPOP_REQUIRED: 'yes' }, /DPOP_REQUIRED/],
    ['DPOP_NONCE other than on or off', { DPOP_NONCE: 'true' }, /DPOP_NONCE/],
    ['DPOP_PROOF_MAX_AGE above 300', { DPOP_PROOF_MAX_AGE: '301' }, /DPOP_PROOF_MAX_AGE.*300/],
    ['DPOP_PROOF_MAX_AGE of 0', { DPOP_PROOF_MAX_AGE: '0' }, /DPOP_PROOF_MAX_AGE/],
    ['DPOP_PROOF_MAX_AGE that is not a number', { DPOP_PROOF_MAX_AGE: 'a minute' }, /DPOP_PROOF_MAX_AGE/],
    [
      'DPOP_NONCE_SECRET under 32 bytes',
      { DPOP_NONCE: 'on', DPOP_NONCE_SECRET: randomBytes(16).toString('base64url') },
      /DPOP_NONCE_SECRET.*32 bytes/,
    ],
    [
      'DPOP_NONCE_SECRET that is not base64url',
      { DPOP_NONCE: 'on', DPOP_NONCE_SECRET: `${'a'.repeat(50)}+/=` },
      /DPOP_NONCE_SECRET/,
    ],
    [
      'DPOP_NONCE_SECRET without DPOP_NONCE=on',
      { DPOP_NONCE_SECRET: randomBytes(32).toString('base64url') },
      /DPOP_NONCE_SECRET.*DPOP_NONCE is not on/,
    ],
  ])('stops the boot on %s, naming the variable', (_name, env, message) => {
    expect(refusal({ EXTENSIONS: 'dpop', ...env })).toMatch(message);
  });

  it.each(['DPOP_REQUIRED', 'DPOP_NONCE', 'DPOP_PROOF_MAX_AGE'])(
    'stops the boot on %s without the extension',
    (name) => {
      const value = { DPOP_REQUIRED: 'false', DPOP_NONCE: 'off', DPOP_PROOF_MAX_AGE: '60' }[name] as string;
      expect(refusal({ [name]: value })).toMatch(new RegExp(`${name}.*EXTENSIONS does not include dpop`));
    },
  );
});
