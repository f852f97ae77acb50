import { describe, expect, it } from '@jest/globals';
import { operationKey } from './operation-key.js';

const url = new URL('http://127.0.0.1/mcp');
const body = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

describe('operation keys for step-up tracking (MCP 2026-07-28 "Step-Up Authorization Flow")', () => {
  it('tells tool calls apart by tool name', () => {
    const create = operationKey(
      'POST',
      url,
      body({ method: 'tools/call', params: { name: 'notes_create' } }),
    );
    const list = operationKey('POST', url, body({ method: 'tools/call', params: { name: 'notes_list' } }));
    expect(create).toBe('POST /mcp tools/call notes_create');
    expect(list).not.toBe(create);
  });

  it('keys a resource read by its URI and other methods by method', () => {
    expect(operationKey('POST', url, body({ method: 'resources/read', params: { uri: 'note://1' } }))).toBe(
      'POST /mcp resources/read note://1',
    );
    expect(operationKey('POST', url, body({ method: 'tools/list' }))).toBe('POST /mcp tools/list');
  });

  it.each([
    ['no body', undefined],
    ['a body that is not JSON', new TextEncoder().encode('not json')],
    ['a JSON array (a batch)', body([{ method: 'tools/list' }])],
  ])('falls back to method and path for %s', (_, value) => {
    expect(operationKey('GET', url, value)).toBe('GET /mcp');
  });
});
