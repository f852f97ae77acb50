import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { getRevision, REVISIONS } from '@portcullis/revisions';
import { PortcullisError } from '../errors/portcullis-error.js';
import type { PendingAuthorization } from './authorization-request.js';
import { CALLBACK_CHECKS, checkAuthorizationResponse, readCallback } from './authorization-response.js';
import { codeCheck } from './callback-checks/code.check.js';
import { errorResponseCheck } from './callback-checks/error-response.check.js';
import { issCheck } from './callback-checks/iss.check.js';
import { stateCheck } from './callback-checks/state.check.js';

const latest = getRevision('2026-07-28');
const pending: PendingAuthorization = {
  state: 'state-0123456789abcdef',
  codeVerifier: 'v'.repeat(43),
  issuer: 'https://as.example/tenant',
  issParameterSupported: true,
  redirectUri: 'http://127.0.0.1:4321/callback',
  resource: 'https://mcp.example/mcp',
  scope: [],
};

function callback(params: Record<string, string>): string {
  return `${pending.redirectUri}?${new URLSearchParams(params).toString()}`;
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof PortcullisError ? error.code : 'not a PortcullisError';
  }
}

describe('the authorization response checks (MCP 2026-07-28 "Authorization Response Validation", RFC 9207 2.4)', () => {
  it('runs state, then iss, then the error response, then the code check', () => {
    expect(CALLBACK_CHECKS).toEqual([stateCheck, issCheck, errorResponseCheck, codeCheck]);
  });

  it('returns the redirect URI with the checked code, state and iss for the token request', () => {
    const checked = checkAuthorizationResponse(
      callback({ code: 'c', state: pending.state, iss: pending.issuer }),
      pending,
      latest,
    );
    expect(checked.href).toBe(
      `${pending.redirectUri}?code=c&state=${pending.state}&iss=${encodeURIComponent(pending.issuer)}`,
    );
  });

  it.each([
    ['iss differs only in case', { iss: 'https://AS.example/tenant' }, 'iss_mismatch'],
    ['iss has a default port', { iss: 'https://as.example:443/tenant' }, 'iss_mismatch'],
    ['iss is percent-encoded differently', { iss: 'https://as.example/%74enant' }, 'iss_mismatch'],
    ['iss is empty', { iss: '' }, 'iss_mismatch'],
    ['iss is absent though advertised', {}, 'iss_missing'],
  ])('refuses a response where %s', (_, extra, code) => {
    expect(
      codeOf(() =>
        checkAuthorizationResponse(callback({ code: 'c', state: pending.state, ...extra }), pending, latest),
      ),
    ).toBe(code);
  });

  it.each(REVISIONS)(
    'applies RFC 9207 2.4 under %s: refuses a wrong or missing advertised iss, passes the checked iss on',
    (id) => {
      const revision = getRevision(id);
      const sent = (extra: Record<string, string>) =>
        codeOf(() =>
          checkAuthorizationResponse(
            callback({ code: 'c', state: pending.state, ...extra }),
            pending,
            revision,
          ),
        );
      expect(sent({ iss: 'https://evil.example' })).toBe('iss_mismatch');
      expect(sent({})).toBe('iss_missing');
      const checked = checkAuthorizationResponse(
        callback({ code: 'c', state: pending.state, iss: pending.issuer }),
        pending,
        revision,
      );
      expect(checked.searchParams.get('iss')).toBe(pending.issuer);
    },
  );

  it('compares the form-decoded iss (a + or %2F in the query decodes before comparison)', () => {
    const url = `${pending.redirectUri}?code=c&state=${pending.state}&iss=https%3A%2F%2Fas.example%2Ftenant`;
    expect(codeOf(() => checkAuthorizationResponse(url, pending, latest))).toBeUndefined();
  });

  it('refuses a callback that is not at the redirect URI of the request', () => {
    const url = `http://127.0.0.1:4321/elsewhere?code=c&state=${pending.state}&iss=${pending.issuer}`;
    expect(codeOf(() => checkAuthorizationResponse(url, pending, latest))).toBe('invalid_callback');
  });

  it.each(['code', 'state', 'iss', 'error'])('refuses a callback that repeats %s', (name) => {
    expect(
      codeOf(() => readCallback(`${pending.redirectUri}?${name}=a&${name}=b`, pending.redirectUri)),
    ).toBe('invalid_callback');
  });

  it('requires a code when there is no error', () => {
    expect(
      codeOf(() =>
        checkAuthorizationResponse(callback({ state: pending.state, iss: pending.issuer }), pending, latest),
      ),
    ).toBe('invalid_callback');
  });

  it('never lets any iss other than the recorded issuer through, and never reveals the error it came with', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (iss, description) => {
        fc.pre(iss !== pending.issuer);
        const url = callback({
          error: 'access_denied',
          error_description: description,
          state: pending.state,
          iss,
        });
        try {
          checkAuthorizationResponse(url, pending, latest);
          return false;
        } catch (error) {
          return (
            error instanceof PortcullisError &&
            error.code === 'iss_mismatch' &&
            error.authorizationServerError === undefined &&
            !JSON.stringify(error.details).includes('access_denied')
          );
        }
      }),
    );
  });

  it('never lets any state other than the one sent through', () => {
    fc.assert(
      fc.property(fc.string(), (state) => {
        fc.pre(state !== pending.state);
        return (
          codeOf(() =>
            checkAuthorizationResponse(callback({ code: 'c', state, iss: pending.issuer }), pending, latest),
          ) === 'state_mismatch'
        );
      }),
    );
  });
});
