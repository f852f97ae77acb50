import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { OAuthError } from '@portcullis/protocol';
import { checkTokenShape, looksLikeJwt } from './token-shape.check.js';

describe('checkTokenShape', () => {
  it('accepts every RFC 6750 b64token up to the length bound', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9\-._~+/]{1,200}={0,2}$/), (token) => {
        expect(() => checkTokenShape(token, 8192)).not.toThrow();
      }),
    );
  });

  it('rejects any token with a character outside b64token as invalid_token, never with another error', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 64 }).filter((value) => !/^[A-Za-z0-9\-._~+/]+=*$/.test(value)),
        (token) => {
          expect(() => checkTokenShape(token, 8192)).toThrow(
            expect.objectContaining({ code: 'invalid_token' }) as unknown as Error,
          );
        },
      ),
    );
  });

  it('rejects a 10 KiB token before looking at its content', () => {
    const error = (() => {
      try {
        checkTokenShape('a'.repeat(10 * 1024), 8192);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).description).toContain('too long');
  });
});

describe('looksLikeJwt', () => {
  it('takes exactly three segments for a JWT candidate', () => {
    expect(looksLikeJwt('a.b.c')).toBe(true);
    expect(looksLikeJwt('a.b')).toBe(false);
    expect(looksLikeJwt('a.b.c.d')).toBe(false);
    expect(looksLikeJwt('opaque-token')).toBe(false);
  });
});
