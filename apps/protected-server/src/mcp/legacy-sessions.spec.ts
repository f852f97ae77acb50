import { afterEach, describe, expect, it } from '@jest/globals';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { LegacySessionRegistry, type LegacySession } from './legacy-sessions.js';

const opened: LegacySession[] = [];
const AS = 'https://as.example';

/** A user of the authorization server `AS`, by subject. */
const user = (subject: string, issuer = AS) => ({ issuer, subject });

function session(id: string, subject: string, lastSeen = Date.now()): LegacySession {
  const created: LegacySession = {
    id,
    owner: user(subject),
    server: new McpServer({ name: 'test', version: '1.0.0' }),
    transport: new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => id }),
    lastSeen,
  };
  opened.push(created);
  return created;
}

afterEach(async () => {
  for (const { transport } of opened.splice(0)) await transport.close();
});

describe('LegacySessionRegistry', () => {
  it('gives a session only to the user that opened it: same issuer and same subject', () => {
    const registry = new LegacySessionRegistry({ maxSessions: 10, idleTimeoutMs: 60_000 });
    registry.add(session('s1', 'alice'));
    expect(registry.get('s1', user('alice'))?.id).toBe('s1');
    expect(registry.get('s1', user('bob'))).toBeUndefined();
    expect(registry.get('s1', user('alice', 'https://proxy.example'))).toBeUndefined();
    expect(registry.get('s2', user('alice'))).toBeUndefined();
  });

  it('closes the least recently used session when it is full', async () => {
    const registry = new LegacySessionRegistry({ maxSessions: 2, idleTimeoutMs: 60_000 });
    const first = session('s1', 'alice');
    let closed = false;
    first.transport.onclose = () => (closed = true);
    registry.add(first);
    registry.add(session('s2', 'bob'));
    registry.get('s1', user('alice')); // s2 is now the least recently used
    registry.add(session('s3', 'carol'));
    expect(registry.get('s2', user('bob'))).toBeUndefined();
    expect(registry.get('s1', user('alice'))?.id).toBe('s1');
    expect(registry.size).toBe(2);
    expect(closed).toBe(false);
  });

  it('forgets sessions idle for longer than the limit', () => {
    const registry = new LegacySessionRegistry({ maxSessions: 10, idleTimeoutMs: 1_000 });
    registry.add(session('old', 'alice', Date.now() - 5_000));
    registry.add(session('new', 'alice'));
    expect(registry.get('old', user('alice'))).toBeUndefined();
    expect(registry.get('new', user('alice'))?.id).toBe('new');
  });
});
