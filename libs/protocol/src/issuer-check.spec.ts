import { describe, expect, it } from '@jest/globals';
import { checkAuthorizationResponseIssuer, type IssuerCheckResult } from './issuer-check.js';

const ISSUER = 'https://auth.example.com/tenant1';
const OK: IssuerCheckResult = { ok: true };
const MISSING: IssuerCheckResult = { ok: false, reason: 'iss_missing' };
const MISMATCH: IssuerCheckResult = { ok: false, reason: 'iss_mismatch' };

describe('checkAuthorizationResponseIssuer', () => {
  // MCP 2026-07-28 "Authorization Response Validation": every row, with "false or absent" and "absent" spelled
  // every way they arrive.
  describe.each<[string, boolean | undefined]>([
    ['true', true],
    ['false', false],
    ['absent', undefined],
  ])('with authorization_response_iss_parameter_supported %s', (_label, issParameterSupported) => {
    it('compares a present iss and proceeds when it equals the recorded issuer', () => {
      expect(
        checkAuthorizationResponseIssuer({ issParameterSupported, iss: ISSUER, expectedIssuer: ISSUER }),
      ).toEqual(OK);
    });

    it('compares a present iss and rejects it when it differs', () => {
      expect(
        checkAuthorizationResponseIssuer({
          issParameterSupported,
          iss: 'https://evil.example.com/tenant1',
          expectedIssuer: ISSUER,
        }),
      ).toEqual(MISMATCH);
    });

    it('treats a present but empty iss as present, and rejects it', () => {
      expect(
        checkAuthorizationResponseIssuer({ issParameterSupported, iss: '', expectedIssuer: ISSUER }),
      ).toEqual(MISMATCH);
    });

    const absent = issParameterSupported === true ? MISSING : OK;
    it(`${issParameterSupported === true ? 'rejects' : 'proceeds with'} a response without iss (undefined)`, () => {
      expect(checkAuthorizationResponseIssuer({ issParameterSupported, expectedIssuer: ISSUER })).toEqual(
        absent,
      );
    });

    it(`${issParameterSupported === true ? 'rejects' : 'proceeds with'} a response without iss (null)`, () => {
      expect(
        checkAuthorizationResponseIssuer({ issParameterSupported, iss: null, expectedIssuer: ISSUER }),
      ).toEqual(absent);
    });
  });

  it.each([
    ['a trailing slash', `${ISSUER}/`],
    ['another case', 'https://Auth.example.com/tenant1'],
    ['an explicit default port', 'https://auth.example.com:443/tenant1'],
    ['percent-encoding', 'https://auth.example.com/tenant%31'],
    ['surrounding whitespace', ` ${ISSUER}`],
    ['a prefix of the issuer', 'https://auth.example.com/tenant'],
  ])('compares without normalisation: %s is a mismatch', (_name, iss) => {
    expect(
      checkAuthorizationResponseIssuer({ issParameterSupported: true, iss, expectedIssuer: ISSUER }),
    ).toEqual(MISMATCH);
  });

  it('compares the form-decoded value the caller passes', () => {
    const iss = new URLSearchParams(`code=x&iss=${encodeURIComponent(ISSUER)}`).get('iss');
    expect(
      checkAuthorizationResponseIssuer({ issParameterSupported: true, iss, expectedIssuer: ISSUER }),
    ).toEqual(OK);
  });

  it('throws when no issuer was recorded, instead of matching iss=', () => {
    expect(() => checkAuthorizationResponseIssuer({ iss: '', expectedIssuer: '' })).toThrow(TypeError);
    expect(() =>
      checkAuthorizationResponseIssuer({ iss: ISSUER, expectedIssuer: undefined as unknown as string }),
    ).toThrow(TypeError);
  });
});
