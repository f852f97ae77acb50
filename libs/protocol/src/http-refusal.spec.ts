import { describe, expect, it } from '@jest/globals';
import {
  describeFrameworkRefusal,
  HTTP_REFUSALS,
  HttpRefusalError,
  type HttpRefusalName,
} from './http-refusal.js';

describe('HTTP refusals', () => {
  // The expected status and body of every refusal, written out independently of the table under test.
  const expected: [HttpRefusalName, number, string, string][] = [
    ['malformed', 400, 'invalid_request', 'the request is malformed'],
    ['no_such_endpoint', 404, 'invalid_request', 'no such endpoint'],
    ['method_not_allowed', 405, 'invalid_request', 'method not allowed'],
    ['body_too_large', 413, 'invalid_request', 'the request body is too large'],
    ['unsupported_media_type', 415, 'invalid_request', 'unsupported content type'],
    ['rate_limited', 429, 'temporarily_unavailable', 'too many requests; retry later'],
  ];

  it.each(expected)(
    'sends %s with HTTP status %i and an RFC 6749 5.2 body',
    (name, status, error, description) => {
      const refusal = new HttpRefusalError(name);
      expect(refusal.status).toBe(status);
      expect(refusal.toResponseBody()).toStrictEqual({ error, error_description: description });
      expect(refusal.message).toBe(description);
    },
  );

  it('knows exactly these refusals', () => {
    expect(Object.keys(HTTP_REFUSALS).sort()).toEqual(expected.map(([name]) => name).sort());
  });

  it('carries the headers it was given', () => {
    expect(new HttpRefusalError('rate_limited', { headers: { 'retry-after': '30' } }).headers).toEqual({
      'retry-after': '30',
    });
    expect(new HttpRefusalError('malformed').headers).toEqual({});
  });

  it.each([
    [400, 'the request is malformed'],
    [404, 'no such endpoint'],
    [405, 'method not allowed'],
    [413, 'the request body is too large'],
    [415, 'unsupported content type'],
    [403, 'the request is malformed'],
    [429, 'the request is malformed'],
  ])('describes a framework refusal with status %i as %j', (status, description) => {
    expect(describeFrameworkRefusal(status)).toBe(description);
  });
});
