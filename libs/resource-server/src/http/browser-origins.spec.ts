import { describe, expect, it } from '@jest/globals';
import { BrowserOrigins, webOriginProblem } from './browser-origins.js';

const RESOURCE = 'https://mcp.example.com/mcp';

describe('webOriginProblem', () => {
  it.each(['https://app.example.com', 'http://localhost:6274', 'http://127.0.0.1:5173', 'http://[::1]:3000'])(
    'accepts the origin %s as a browser sends it',
    (origin) => {
      expect(webOriginProblem(origin)).toBeUndefined();
    },
  );

  it.each([
    ['https://app.example.com/', 'no path or trailing /'],
    ['https://app.example.com/callback', 'no path or trailing /'],
    ['https://App.Example.com', 'https://app.example.com'],
    ['https://app.example.com:443', 'https://app.example.com'],
    ['http://127.1:3000', 'http://127.0.0.1:3000'],
    ['ftp://app.example.com', 'http or https'],
    ['chrome-extension://abcdef', 'http or https'],
    ['null', 'must be an origin'],
    ['app.example.com', 'must be an origin'],
    ['*', 'must be an origin'],
  ])('refuses %j, saying %j', (value, message) => {
    expect(webOriginProblem(value)).toContain(message);
  });
});

describe('BrowserOrigins', () => {
  it('allows only the resource’s own origin when nothing is configured', () => {
    const origins = new BrowserOrigins(RESOURCE);
    expect(origins.allows('https://mcp.example.com')).toBe(true);
    expect(origins.allows('http://mcp.example.com')).toBe(false);
    expect(origins.allows('https://mcp.example.com:8443')).toBe(false);
    expect(origins.allows('http://localhost:6274')).toBe(false);
    expect(origins.grantsAny).toBe(false);
  });

  it('allows the listed origins byte for byte, and no other spelling, port or subdomain', () => {
    const origins = new BrowserOrigins(RESOURCE, {
      origins: ['https://app.example.com', 'http://localhost:6274'],
    });
    expect(origins.allows('https://app.example.com')).toBe(true);
    expect(origins.allows('http://localhost:6274')).toBe(true);
    for (const other of [
      'https://app.example.com/',
      'https://APP.example.com',
      'http://app.example.com',
      'https://app.example.com:444',
      'https://evil.app.example.com',
      'https://app.example.com.evil.example',
      'http://localhost:6275',
      'http://127.0.0.1:6274',
      'null',
      '',
    ]) {
      expect(origins.allows(other)).toBe(false);
    }
    expect(origins.listed).toEqual(['https://app.example.com', 'http://localhost:6274']);
    expect(origins.grantsAny).toBe(true);
  });

  it('with loopback, allows every http and https loopback origin at any port, and nothing else more', () => {
    const origins = new BrowserOrigins(RESOURCE, { loopback: true });
    for (const loopback of [
      'http://localhost:6274',
      'https://localhost',
      'http://127.0.0.1:5173',
      'http://127.4.5.6:1',
      'http://[::1]:3000',
    ]) {
      expect(origins.allows(loopback)).toBe(true);
    }
    for (const other of [
      'http://localhost.evil.example',
      'http://127.0.0.1.nip.io',
      'http://app.localhost',
      'http://10.0.0.1:3000',
      'http://127.1:3000',
      'null',
      'file://',
    ]) {
      expect(origins.allows(other)).toBe(false);
    }
  });

  it('refuses a configured entry that is not an origin, naming it', () => {
    expect(() => new BrowserOrigins(RESOURCE, { origins: ['https://app.example.com/'] })).toThrow(
      '"https://app.example.com/" must be written as the browser sends it, https://app.example.com',
    );
    expect(() => new BrowserOrigins(RESOURCE, { origins: ['*'] })).toThrow('"*" must be an origin');
  });
});
