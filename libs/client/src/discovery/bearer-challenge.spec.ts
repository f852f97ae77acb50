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
      schemes: ['bearer'],
    });
  });

  it('takes the Bearer challenge among several schemes', () => {
    expect(readBearerChallenge(withChallenge('Basic realm="x", Bearer scope="s"'))?.scope).toEqual(['s']);
  });

  it('treats a malformed scope as absent', () => {
    expect(readBearerChallenge(withChallenge('Bearer scope="a  b"'))?.scope).toBeUndefined();
  });

  it('reads a DPoP challenge alone, as a resource that accepts DPoP only sends it (RFC 9449 7.1)', () => {
    expect(
      readBearerChallenge(withChallenge('DPoP resource_metadata="https://r.example/m", algs="ES256"')),
    ).toStrictEqual({ resourceMetadata: 'https://r.example/m', schemes: ['dpop'] });
  });

  it('reads a field holding both challenges, each parameter from the first challenge that has it', () => {
    const header =
      'Bearer resource_metadata="https://r.example/m", scope="a", DPoP error="insufficient_scope", scope="a b", algs="ES256"';
    expect(readBearerChallenge(withChallenge(header))).toStrictEqual({
      resourceMetadata: 'https://r.example/m',
      scope: ['a'],
      error: 'insufficient_scope',
      schemes: ['bearer', 'dpop'],
    });
  });

  it('prefers the challenge of the scheme the token was presented with', () => {
    const header =
      'Bearer error="invalid_token", DPoP error="invalid_dpop_proof", resource_metadata="https://r/m"';
    expect(readBearerChallenge(withChallenge(header), 'DPoP')).toStrictEqual({
      resourceMetadata: 'https://r/m',
      error: 'invalid_dpop_proof',
      schemes: ['bearer', 'dpop'],
    });
    expect(readBearerChallenge(withChallenge(header))?.error).toBe('invalid_token');
  });

  it('records every scheme the field challenges with, lower-cased, so a DPoP challenge says the resource accepts DPoP', () => {
    expect(readBearerChallenge(withChallenge('Basic realm="x", Bearer scope="s"'))?.schemes).toEqual([
      'basic',
      'bearer',
    ]);
    expect(
      readBearerChallenge(withChallenge('Bearer resource_metadata="https://r/m", dpop algs="ES256"'))
        ?.schemes,
    ).toEqual(['bearer', 'dpop']);
  });

  it.each([undefined, 'Basic realm="x"'])('returns undefined without a Bearer challenge (%s)', (value) => {
    expect(readBearerChallenge(withChallenge(value))).toBeUndefined();
  });
});
