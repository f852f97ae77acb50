import { describe, expect, it } from '@jest/globals';
import { PortcullisError, findPortcullisError, isPortcullisError } from './portcullis-error.js';

describe('PortcullisError', () => {
  it('is found through a chain of causes, as the MCP SDK wraps what fetch throws', () => {
    const original = new PortcullisError('iss_mismatch', 'x');
    const wrapped = new Error('transport failed', { cause: new Error('send failed', { cause: original }) });
    expect(findPortcullisError(wrapped)).toBe(original);
    expect(findPortcullisError(new Error('plain'))).toBeUndefined();
  });

  it('survives a cyclic cause chain', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(findPortcullisError(a)).toBeUndefined();
  });

  it('matches codes with isPortcullisError', () => {
    const error = new PortcullisError('state_mismatch', 'x');
    expect(isPortcullisError(error)).toBe(true);
    expect(isPortcullisError(error, 'iss_mismatch', 'state_mismatch')).toBe(true);
    expect(isPortcullisError(error, 'iss_mismatch')).toBe(false);
  });
});
