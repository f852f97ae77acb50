import { describe, expect, it } from '@jest/globals';
import { defineExtension, ExtensionRegistry } from '@portcullis/extensions';
import { createAuthorizedFetch } from '../authorized-fetch.js';
import { HeadlessUserAgent } from '../user-agent/headless-user-agent.js';
import { mcpClientCapabilities } from './mcp-transport.adapter.js';

const RESOURCE = 'https://mcp.example.com/mcp';

const machine = defineExtension({
  id: 'com.example/machine-grant',
  version: '1.0.0',
  client: {
    grantStrategies: {
      machine: {
        grantType: 'urn:example:machine',
        obtainToken: async () => ({ access_token: 'x', token_type: 'Bearer' }),
      },
    },
  },
});
const other = defineExtension({ id: 'com.example/other', version: '1.0.0' });
const extensions = ExtensionRegistry.compose([machine, other]);

describe('mcpClientCapabilities (MCP SEP-2133 "Negotiation")', () => {
  it('declares the extension of the grant strategy in use, and no other composed one, with no settings', () => {
    const authorizedFetch = createAuthorizedFetch({
      resource: RESOURCE,
      extensions,
      grantStrategy: 'machine',
    });
    expect(authorizedFetch.declaredExtensions).toEqual(['com.example/machine-grant']);
    expect(mcpClientCapabilities(authorizedFetch)).toEqual({
      extensions: { 'com.example/machine-grant': {} },
    });
  });

  it('declares nothing without a grant strategy, even with extensions composed', () => {
    const authorizedFetch = createAuthorizedFetch({
      resource: RESOURCE,
      extensions,
      userAgent: new HeadlessUserAgent(),
    });
    expect(authorizedFetch.declaredExtensions).toEqual([]);
    expect(mcpClientCapabilities(authorizedFetch)).toEqual({});
  });

  it('keeps the capabilities it is given, and the settings they give an extension it would declare', () => {
    const declared = { declaredExtensions: ['com.example/machine-grant'] };
    expect(
      mcpClientCapabilities(declared, {
        roots: { listChanged: true },
        extensions: { 'com.example/ui': { mimeTypes: ['text/html'] } },
      }),
    ).toEqual({
      roots: { listChanged: true },
      extensions: { 'com.example/machine-grant': {}, 'com.example/ui': { mimeTypes: ['text/html'] } },
    });
    expect(
      mcpClientCapabilities(declared, { extensions: { 'com.example/machine-grant': { mode: 'jwt' } } }),
    ).toEqual({ extensions: { 'com.example/machine-grant': { mode: 'jwt' } } });
  });
});
