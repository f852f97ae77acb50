import { describe, expect, it } from '@jest/globals';
import {
  OAUTH_ERROR_CODES,
  OAUTH_ERROR_STATUS,
  OAuthError,
  isOAuthErrorCode,
  type OAuthErrorCode,
} from './oauth-error.js';

describe('OAuthError', () => {
  // The expected status of every code, written out independently of the table under test.
  const expectedStatus: [OAuthErrorCode, number][] = [
    ['invalid_request', 400],
    ['invalid_client', 401],
    ['invalid_grant', 400],
    ['unauthorized_client', 400],
    ['unsupported_grant_type', 400],
    ['unsupported_response_type', 400],
    ['invalid_scope', 400],
    ['access_denied', 400],
    ['server_error', 500],
    ['temporarily_unavailable', 503],
    ['invalid_token', 401],
    ['insufficient_scope', 403],
    ['invalid_redirect_uri', 400],
    ['invalid_client_metadata', 400],
    ['invalid_software_statement', 400],
    ['unapproved_software_statement', 400],
    ['invalid_target', 400],
    ['unsupported_token_type', 400],
    ['interaction_required', 400],
    ['login_required', 400],
    ['account_selection_required', 400],
    ['consent_required', 400],
    ['invalid_dpop_proof', 400],
    ['use_dpop_nonce', 400],
  ];

  it.each(expectedStatus)('sends %s with HTTP status %i', (code, status) => {
    expect(new OAuthError(code).status).toBe(status);
    expect(OAUTH_ERROR_STATUS[code]).toBe(status);
  });

  it('knows exactly the codes of the status table, each once', () => {
    expect([...OAUTH_ERROR_CODES].sort()).toEqual(expectedStatus.map(([code]) => code).sort());
  });

  it('keeps the code, description and a message, and is an Error', () => {
    const error = new OAuthError('invalid_target', 'resource must not contain a fragment');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('OAuthError');
    expect(error.code).toBe('invalid_target');
    expect(error.description).toBe('resource must not contain a fragment');
    expect(error.message).toBe('resource must not contain a fragment');
  });

  it('uses the code as message when there is no description', () => {
    const error = new OAuthError('server_error');
    expect(error.message).toBe('server_error');
    expect(error.description).toBeUndefined();
  });

  it('writes { error, error_description } as the response body', () => {
    expect(new OAuthError('invalid_grant', 'code already used').toResponseBody()).toEqual({
      error: 'invalid_grant',
      error_description: 'code already used',
    });
  });

  it('writes members an extension defines beside error and error_description, which they cannot replace', () => {
    const error = new OAuthError('invalid_grant', 'connect first', {
      members: { interaction_uri: 'https://as.example/connect', error: 'x', error_description: 'y' },
    });
    expect(error.toResponseBody()).toStrictEqual({
      interaction_uri: 'https://as.example/connect',
      error: 'invalid_grant',
      error_description: 'connect first',
    });
  });

  it('leaves error_description out of the body when there is none, or it is empty', () => {
    expect(new OAuthError('invalid_client').toResponseBody()).toStrictEqual({ error: 'invalid_client' });
    expect(new OAuthError('invalid_client', '').toResponseBody()).toStrictEqual({ error: 'invalid_client' });
  });

  it.each([
    ['say "hi"', "say 'hi'"],
    ['a\\b', 'a/b'],
    ['line\r\nSet-Cookie: x=1', 'line  Set-Cookie: x=1'],
    ['tab\there', 'tab here'],
    ['nul\u0000del\u007f', 'nul?del?'],
    ['café ☕', 'caf? ?'],
  ])('reduces the description %j to RFC 6749 characters as %j', (given, wire) => {
    const error = new OAuthError('invalid_request', given);
    expect(error.description).toBe(wire);
    expect(error.toResponseBody().error_description).toBe(wire);
    expect(wire).toMatch(/^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/u);
  });

  it('carries the response headers it must travel with, and none by default', () => {
    const nonce = new OAuthError('use_dpop_nonce', 'nonce', { headers: { 'DPoP-Nonce': 'n-1' } });
    expect(nonce.headers).toEqual({ 'DPoP-Nonce': 'n-1' });
    expect(new OAuthError('invalid_grant').headers).toEqual({});
  });

  it('keeps a cause for logging without sending it', () => {
    const cause = new Error('connection refused');
    const error = new OAuthError('temporarily_unavailable', 'try again later', { cause });
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(error.toResponseBody())).not.toContain('connection refused');
  });

  it('refuses a code outside the union', () => {
    expect(() => new OAuthError('made_up' as OAuthErrorCode)).toThrow(TypeError);
    expect(() => new OAuthError('toString' as OAuthErrorCode)).toThrow(TypeError);
  });

  it('recognises codes with isOAuthErrorCode, and nothing else', () => {
    expect(isOAuthErrorCode('invalid_target')).toBe(true);
    expect(isOAuthErrorCode('unsupported_token_type')).toBe(true);
    expect(isOAuthErrorCode('INVALID_TARGET')).toBe(false);
    expect(isOAuthErrorCode('constructor')).toBe(false);
    expect(isOAuthErrorCode(400)).toBe(false);
    expect(isOAuthErrorCode(undefined)).toBe(false);
  });
});
