import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { constantTimeEqual } from './constant-time.js';

describe('constantTimeEqual', () => {
  it('is true for the same value, as strings, as bytes, or one of each', () => {
    expect(constantTimeEqual('s3cr3t-é', 's3cr3t-é')).toBe(true);
    expect(constantTimeEqual(Buffer.from('s3cr3t-é'), new TextEncoder().encode('s3cr3t-é'))).toBe(true);
    expect(constantTimeEqual('s3cr3t-é', Buffer.from('s3cr3t-é', 'utf8'))).toBe(true);
    expect(constantTimeEqual('', '')).toBe(true);
  });

  it('is false, without throwing, for values of different lengths', () => {
    expect(constantTimeEqual('secret', 'secret-and-more')).toBe(false);
    expect(constantTimeEqual('', 'x')).toBe(false);
    expect(constantTimeEqual(Buffer.alloc(31), Buffer.alloc(32))).toBe(false);
    // A prefix is not the value.
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });

  it('is false for values of one length that differ in one byte', () => {
    expect(constantTimeEqual('secret-a', 'secret-b')).toBe(false);
    expect(constantTimeEqual(Buffer.from([0, 0, 1]), Buffer.from([0, 0, 0]))).toBe(false);
  });

  it('agrees with plain equality on every pair of strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b);
        expect(constantTimeEqual(a, a)).toBe(true);
      }),
    );
  });
});
