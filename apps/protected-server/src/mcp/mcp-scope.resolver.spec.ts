import { describe, expect, it } from '@jest/globals';
import { mcpRequiredScopes } from './mcp-scope.resolver.js';
import { TOOL_SCOPES } from './mcp-scopes.js';

const request = (method: string, params?: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });

describe('mcpRequiredScopes', () => {
  it.each<[string, unknown, string[]]>([
    ['initialize', request('initialize'), []],
    ['ping', request('ping'), []],
    ['tools/list', request('tools/list'), []],
    ['server/discover', request('server/discover'), []],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }, []],
    ['a response to a server request', { jsonrpc: '2.0', id: 4, result: {} }, []],
    ['notes_list', request('tools/call', { name: 'notes_list' }), ['notes:read']],
    ['notes_get', request('tools/call', { name: 'notes_get' }), ['notes:read']],
    ['notes_create', request('tools/call', { name: 'notes_create' }), ['notes:write']],
    ['notes_delete', request('tools/call', { name: 'notes_delete' }), ['notes:write']],
    ['a tool no one has', request('tools/call', { name: 'rm_rf' }), []],
    ['a tool name that is an inherited property', request('tools/call', { name: 'constructor' }), []],
    ['resources/read', request('resources/read', { uri: 'notes://x' }), ['notes:read']],
    ['resources/list', request('resources/list'), ['notes:read']],
    [
      'an unclassified method',
      request('resources/subscribe', { uri: 'notes://x' }),
      ['notes:read', 'notes:write'],
    ],
    ['a body that is not JSON-RPC', 'hello', []],
    ['no body', undefined, []],
  ])('needs the right scopes for %s', (_name, body, scopes) => {
    expect(mcpRequiredScopes(body)).toEqual(scopes);
  });

  it('needs the union of a batch’s scopes, each once', () => {
    const batch = [
      request('tools/call', { name: 'notes_list' }),
      request('tools/call', { name: 'notes_create' }),
      request('tools/call', { name: 'notes_get' }),
    ];
    expect(mcpRequiredScopes(batch)).toEqual(['notes:read', 'notes:write']);
  });

  it('gives every tool at least one scope', () => {
    for (const scopes of Object.values(TOOL_SCOPES)) expect(scopes.length).toBeGreaterThan(0);
  });
});
