import { describe, expect, it } from '@jest/globals';
import { redactUrl, requestIdFor } from './logging.js';

describe('redactUrl', () => {
  it('censors the values of secret query parameters and keeps the rest', () => {
    expect(redactUrl('/cb?code=abc123&state=xyz&iss=http%3A%2F%2Fas')).toBe(
      '/cb?code=[redacted]&state=xyz&iss=http%3A%2F%2Fas',
    );
    expect(redactUrl('/token?client_secret=s3cret&refresh_token=r&access_token=a')).toBe(
      '/token?client_secret=[redacted]&refresh_token=[redacted]&access_token=[redacted]',
    );
  });

  it('censors a secret parameter whose name is percent-encoded', () => {
    expect(redactUrl('/x?c%6Fde=abc')).toBe('/x?c%6Fde=[redacted]');
  });

  it('leaves URLs without a query, and malformed escapes, as they were', () => {
    expect(redactUrl('/healthz')).toBe('/healthz');
    expect(redactUrl('/x?%zz=1')).toBe('/x?%zz=1');
  });
});

describe('requestIdFor', () => {
  it('keeps a plain incoming id and replaces anything else with a UUID', () => {
    expect(requestIdFor('abc-123.def:4')).toBe('abc-123.def:4');
    for (const bad of [undefined, '', 'has space', 'x'.repeat(129), ['a', 'b'], 'new\nline']) {
      expect(requestIdFor(bad)).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
    }
  });
});
