import { describe, expect, it } from '@jest/globals';
import { redactDatabaseUrl } from './redact-url.js';

describe('redactDatabaseUrl', () => {
  it('hides the password and drops the query', () => {
    expect(redactDatabaseUrl('postgresql://app:s3cret@db:5432/portcullis?sslpassword=x')).toBe(
      'postgresql://app:***@db:5432/portcullis',
    );
  });

  it('leaves a URL without a password readable', () => {
    expect(redactDatabaseUrl('postgresql://postgres@127.0.0.1:5432/postgres')).toBe(
      'postgresql://postgres@127.0.0.1:5432/postgres',
    );
  });

  it('never echoes what it cannot parse', () => {
    expect(redactDatabaseUrl('postgresql://a:b@c:d:e/f g')).toBe('<unparseable URL>');
  });
});
