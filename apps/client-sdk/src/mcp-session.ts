/**
 * Connecting the official MCP client SDK through the authorized fetch.
 *
 * The wire era follows the revision: 2026-07-28 speaks the stateless protocol (`server/discover` and per-request
 * `_meta`), the dated revisions before it the `initialize` handshake. A conformance run names the exact protocol
 * version in `MCP_CONFORMANCE_PROTOCOL_VERSION`; an interactive run negotiates (`auto`) under 2026-07-28.
 *
 * The client declares the extension its tokens come from (`--client-credentials`, `--id-jag`) in its capabilities'
 * `extensions`, as MCP SEP-2133 "Negotiation" has clients advertise the extensions they support
 * (https://modelcontextprotocol.io/seps/2133-extensions).
 */
import {
  Client,
  SUPPORTED_PROTOCOL_VERSIONS,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import {
  mcpClientCapabilities,
  mcpTransportOptions,
  type AuthorizedFetch,
  type McpClientCapabilities,
} from '@portcullis/client';
import { readFileSync } from 'node:fs';

const MODERN_PROTOCOL_VERSIONS = new Set(['2026-07-28']);

function packageVersion(): string {
  try {
    const json = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return json.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** How the MCP client picks its protocol version. */
export type WireVersion =
  { readonly kind: 'negotiate' } | { readonly kind: 'exact'; readonly version: string };

/** An MCP session over the authorized fetch. */
export interface McpSession {
  readonly client: Client;
  close(): Promise<void>;
}

/**
 * Connects an MCP client to `serverUrl`, every HTTP request going through `authorizedFetch`.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http
 */
export async function connectMcp(
  serverUrl: string,
  authorizedFetch: AuthorizedFetch,
  wire: WireVersion,
  /** Capabilities the command handles (`call`: URL-mode elicitation), beside the extensions declared. */
  capabilities?: McpClientCapabilities & { elicitation?: { url?: Record<string, never> } },
): Promise<McpSession> {
  const modern = wire.kind === 'exact' && MODERN_PROTOCOL_VERSIONS.has(wire.version);
  const client = new Client(
    { name: 'portcullis', version: packageVersion() },
    {
      capabilities: mcpClientCapabilities(authorizedFetch, capabilities),
      ...(wire.kind === 'negotiate'
        ? { versionNegotiation: { mode: 'auto' as const } }
        : modern
          ? { versionNegotiation: { mode: { pin: wire.version } } }
          : {
              supportedProtocolVersions: [
                wire.version,
                ...SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v !== wire.version),
              ],
            }),
    },
  );
  const transport = new StreamableHTTPClientTransport(
    new URL(serverUrl),
    mcpTransportOptions(authorizedFetch),
  );
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await client.close();
    },
  };
}

/** The wire version of an interactive command: negotiated under 2026-07-28, the legacy handshake before it. */
export function wireForRevision(revision: string): WireVersion {
  return MODERN_PROTOCOL_VERSIONS.has(revision)
    ? { kind: 'negotiate' }
    : { kind: 'exact', version: revision };
}
