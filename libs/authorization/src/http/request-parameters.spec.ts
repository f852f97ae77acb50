import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { OAuthError } from '@portcullis/protocol';
import { mediaType, RequestParameters } from './request-parameters.js';

describe('RequestParameters', () => {
  it('keeps every resource apart and each other parameter once', () => {
    const params = RequestParameters.fromUrl(
      '/authorize?client_id=a&resource=https%3A%2F%2Fx&resource=https%3A%2F%2Fy&scope=a+b',
    );
    expect(params.resources).toEqual(['https://x', 'https://y']);
    expect(params.get('scope')).toBe('a b');
    expect(params.repeated).toEqual([]);
    expect(params.entries()).toEqual({ client_id: 'a', scope: 'a b' });
  });

  it('reports a repeated parameter with invalid_request', () => {
    const params = RequestParameters.fromForm('code=a&code=b&state=s');
    expect(params.repeated).toEqual(['code']);
    expect(() => params.assertNoRepeats()).toThrow(OAuthError);
    expect(() => params.assertNoRepeats()).toThrow('parameter sent more than once: code');
  });

  it('treats an empty value as absent', () => {
    const params = RequestParameters.fromForm(Buffer.from('scope=&state=x'));
    expect(params.get('scope')).toBeUndefined();
    expect(params.has('state')).toBe(true);
  });

  it('never throws on an arbitrary query or body', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const params = RequestParameters.fromForm(text);
        expect(Array.isArray(params.repeated)).toBe(true);
        RequestParameters.fromUrl(`/x?${text}`);
      }),
    );
  });
});

describe('mediaType', () => {
  it('drops parameters and case', () => {
    expect(mediaType('Application/X-WWW-Form-Urlencoded; charset=UTF-8')).toBe(
      'application/x-www-form-urlencoded',
    );
    expect(mediaType(undefined)).toBeUndefined();
    expect(mediaType('')).toBeUndefined();
  });
});
