import { describe, expect, it } from '@jest/globals';
import { checkNoTokenInBody } from './token-in-body.check.js';
import { checkNoTokenInQuery } from './token-in-query.check.js';

describe('where a token may not be', () => {
  it('refuses access_token in the query string, even empty, as invalid_request', () => {
    expect(() => checkNoTokenInQuery({ headers: {}, query: { access_token: '' } })).toThrow(
      expect.objectContaining({ code: 'invalid_request' }) as unknown as Error,
    );
    expect(() => checkNoTokenInQuery({ headers: {}, query: { other: 'x' } })).not.toThrow();
  });

  it('refuses access_token in a form or JSON body, and lets other bodies through', () => {
    expect(() => checkNoTokenInBody({ headers: {}, body: { access_token: 'abc' } })).toThrow(
      expect.objectContaining({ code: 'invalid_request' }) as unknown as Error,
    );
    expect(() => checkNoTokenInBody({ headers: {}, body: [{ access_token: 'abc' }] })).not.toThrow();
    expect(() => checkNoTokenInBody({ headers: {}, body: 'access_token=abc' })).not.toThrow();
    expect(() => checkNoTokenInBody({ headers: {}, body: { jsonrpc: '2.0' } })).not.toThrow();
  });
});
