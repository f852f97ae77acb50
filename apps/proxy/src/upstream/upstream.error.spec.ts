import { describe, expect, it } from '@jest/globals';
import { UpstreamError } from './upstream.error.js';

const withCause = (message: string, cause: unknown, name = 'Error') =>
  Object.assign(new Error(message, { cause }), { name });

describe('UpstreamError.from', () => {
  it('calls an aborted or timed-out request a timeout, however deep the cause', () => {
    const timeout = Object.assign(new Error('The operation was aborted due to timeout'), {
      name: 'TimeoutError',
    });
    expect(UpstreamError.from(withCause('something went wrong', timeout), 'discovery').failure).toBe(
      'timeout',
    );
  });

  it('calls a refused connection unreachable', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(UpstreamError.from(withCause('fetch failed', refused, 'TypeError'), 'discovery').failure).toBe(
      'unreachable',
    );
  });

  it('calls an access_denied authorization response a denial, and anything else rejected', () => {
    const denied = Object.assign(new Error('authorization response from the server is an error'), {
      name: 'AuthorizationResponseError',
      error: 'access_denied',
    });
    expect(UpstreamError.from(denied, 'callback').failure).toBe('denied');
    expect(UpstreamError.from({ ...denied, error: 'server_error' }, 'callback').failure).toBe('rejected');
    expect(
      UpstreamError.from(new Error('unexpected "iss" (issuer) response parameter value'), 'callback').failure,
    ).toBe('rejected');
  });
});
