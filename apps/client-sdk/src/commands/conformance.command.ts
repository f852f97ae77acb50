/**
 * `portcullis conformance <server-url>`: the client the public MCP conformance suite starts.
 *
 * The suite passes the scenario in `MCP_CONFORMANCE_SCENARIO`, scenario data in `MCP_CONFORMANCE_CONTEXT` (JSON;
 * `client_id`, `client_secret` and `issuer` for pre-registration) and the protocol version in
 * `MCP_CONFORMANCE_PROTOCOL_VERSION`. The client authorizes headlessly (the suite's mock authorization servers
 * approve without a user; github.com/modelcontextprotocol/conformance), with a fresh in-memory store, as a
 * generic MCP client: it connects, lists the tools and calls every tool that takes no required argument. Nothing
 * here depends on the scenario's name; the authorization rules come from the revision, which is `2025-06-18` for
 * that protocol version and `2026-07-28` otherwise (the later dated versions' rules are a subset of it).
 */
import { MemoryTokenStore, type PreRegisteredClient } from '@portcullis/client';
import { isRevisionId, type RevisionId } from '@portcullis/revisions';
import { authorizedFetchFor, preRegisteredClient } from '../authorization.js';
import { connectMcp } from '../mcp-session.js';
import { UsageError, serverUrlArgument } from '../options.js';
import { printToolResult } from './call.command.js';
import type { Command } from './command.js';

interface ConformanceContext {
  readonly client_id?: unknown;
  readonly client_secret?: unknown;
  readonly issuer?: unknown;
}

function readContext(raw: string | undefined): ConformanceContext {
  if (raw === undefined || raw === '') return {};
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null ? (value as ConformanceContext) : {};
  } catch {
    throw new UsageError('MCP_CONFORMANCE_CONTEXT is not JSON');
  }
}

function contextClient(context: ConformanceContext): PreRegisteredClient | undefined {
  if (typeof context.client_id !== 'string') return undefined;
  return {
    clientId: context.client_id,
    ...(typeof context.client_secret === 'string' ? { clientSecret: context.client_secret } : {}),
    ...(typeof context.issuer === 'string' ? { issuer: context.issuer } : {}),
  };
}

/** The authorization revision for a protocol version of the suite. */
export function revisionForProtocolVersion(protocolVersion: string): RevisionId {
  return isRevisionId(protocolVersion) ? protocolVersion : '2026-07-28';
}

export const conformanceCommand: Command = async ({ options, positionals, output, env }) => {
  const serverUrl = serverUrlArgument(positionals, 'conformance');
  const protocolVersion = env['MCP_CONFORMANCE_PROTOCOL_VERSION'] ?? '2026-07-28';
  const revision = options.revision ?? revisionForProtocolVersion(protocolVersion);
  const client = preRegisteredClient(options) ?? contextClient(readContext(env['MCP_CONFORMANCE_CONTEXT']));
  output.info(
    `Conformance scenario ${env['MCP_CONFORMANCE_SCENARIO'] ?? '(unnamed)'}: protocol ${protocolVersion}, revision ${revision}`,
  );
  const authorizedFetch = authorizedFetchFor({
    serverUrl,
    options: {
      ...options,
      revision,
      headless: true,
      clientId: client?.clientId,
      clientSecret: client?.clientSecret,
      issuer: client?.issuer,
    },
    output,
    store: new MemoryTokenStore(),
  });
  const session = await connectMcp(serverUrl, authorizedFetch, { kind: 'exact', version: protocolVersion });
  try {
    const { tools } = await session.client.listTools();
    output.info(`  · Tools: ${tools.map((tool) => tool.name).join(', ') || '(none)'}`);
    for (const tool of tools) {
      const required = (tool.inputSchema as { required?: unknown }).required;
      if (Array.isArray(required) && required.length > 0) continue;
      const result = await session.client.callTool({ name: tool.name, arguments: {} });
      printToolResult(output, result.content, result.structuredContent);
    }
    return 0;
  } finally {
    await session.close();
  }
};
