import { describe, expect, it } from '@jest/globals';
import { decodeJwtStructure } from './jwt-structure.check.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const HEADER = b64({ alg: 'ES256', typ: 'at+jwt' });
const CLAIMS = b64({ sub: 'alice' });

function rejection(token: string): string | undefined {
  try {
    decodeJwtStructure(token);
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('decodeJwtStructure', () => {
  it('decodes the header and claims of a three-segment token', () => {
    expect(decodeJwtStructure(`${HEADER}.${CLAIMS}.c2ln`)).toEqual({
      header: { alg: 'ES256', typ: 'at+jwt' },
      claims: { sub: 'alice' },
    });
  });

  it('rejects two or four segments, an empty signature and padded segments as invalid_token', () => {
    expect(rejection(`${HEADER}.${CLAIMS}`)).toBe('invalid_token');
    expect(rejection(`${HEADER}.${CLAIMS}.c2ln.c2ln`)).toBe('invalid_token');
    expect(rejection(`${HEADER}.${CLAIMS}.`)).toBe('invalid_token');
    expect(rejection(`${HEADER}=.${CLAIMS}.c2ln`)).toBe('invalid_token');
  });

  it('rejects a header or claims set that is not a JSON object', () => {
    expect(rejection(`${b64([1])}.${CLAIMS}.c2ln`)).toBe('invalid_token');
    expect(rejection(`${HEADER}.${b64('text')}.c2ln`)).toBe('invalid_token');
    expect(rejection(`${HEADER}.bm90IGpzb24.c2ln`)).toBe('invalid_token');
  });
});
