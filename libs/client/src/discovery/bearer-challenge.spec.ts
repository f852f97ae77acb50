import { describe, expect, it } from '@jest/globals';
import { readBearerChallenge } from './bearer-challenge.js';

function withChallenge(value: string | undefined): Response {
  return new Response(null, {
    status: 401,
    headers: value === undefined ? {} : { 'www-authenticate': value },
  });
}

describe('reading the Bearer challenge (RFC 6750 Section 3, RFC 9728 Section 5.1)', () => {
  it('reads resource_metadata, scope and error', () => {
    expect(
      readBearerChallenge(
        withChallenge(
          'Bearer error="insufficient_scope", scope="a b", resource_metadata="https://r.example/.well-known/x"',
        ),
      ),
    ).toStrictEqual({
      error: 'insufficient_scope',
      scope: ['a', 'b'],
      resourceMetadata: 'https://r.example/.well-known/x',
    });
  });

  it('takes the Bearer challenge among several schemes', () => {
    expect(readBearerChallenge(withChallenge('Basic realm="x", Bearer scope="s"'))?.scope).toEqual(['s']);
  });

  it('treats a malformed scope as absent', () => {
    expect(readBearerChallenge(withChallenge('Bearer scope="a  b"'))?.scope).toBeUndefined();
  });

  it.each([undefined, 'Basic realm="x"'])('returns undefined without a Bearer challenge (%s)', (value) => {
    expect(readBearerChallenge(withChallenge(value))).toBeUndefined();
  });
});
