// A web-standard MCP handler (the MCP SDK's `createMcpHandler`) wrapped in `protect` of @portcullis/resource-server,
// served on Node through `@modelcontextprotocol/node`. The same `fetch` runs as is on Bun, Deno, Workers or Hono.
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { createResourceServer } from '@portcullis/resource-server';

const { ISSUER, PORT = '3000', HOST = '127.0.0.1' } = process.env;
if (!ISSUER) throw new Error('Set ISSUER: the authorization server whose access tokens this server accepts');
const RESOURCE = process.env['RESOURCE'] ?? `http://localhost:${PORT}/mcp`;
const resourceServer = createResourceServer({
  resource: RESOURCE,
  authorizationServers: [ISSUER],
  scopesSupported: ['notes:read'],
});

function notesServer(): McpServer {
  const server = new McpServer({ name: 'notes-web-standard', version: '1.0.0' });
  server.registerTool('notes_list', { description: 'Lists your notes' }, async (ctx: ServerContext) => {
    const subject = String(ctx.http?.authInfo?.extra?.['subject']); // the token's `sub`
    return { content: [{ type: 'text', text: `notes of ${subject}: none yet` }] };
  });
  return server;
}

// The 401 and 403 challenges before the handler runs; the handler gets the token's `authInfo`, never the token.
const mcp = resourceServer.protect(createMcpHandler(notesServer).fetch, { scopes: ['notes:read'] });
// RFC 9728 metadata at /.well-known/oauth-protected-resource/mcp (and the root one); 404 anywhere else.
const metadata = resourceServer.metadataHandler();
const mcpPath = new URL(RESOURCE).pathname;

export function fetch(request: Request): Promise<Response> {
  return new URL(request.url).pathname === mcpPath ? mcp(request) : metadata(request);
}

createServer(toNodeHandler({ fetch })).listen(Number(PORT), HOST, () =>
  console.log(`listening on ${RESOURCE}`),
);
