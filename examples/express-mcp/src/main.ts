// An MCP server on Express whose access tokens Portcullis validates: the MCP SDK's own `requireBearerAuth` with the
// token verifier of @portcullis/resource-server (issuer, audience, signature, lifetime), and its RFC 9728 metadata.
import { createMcpExpressApp, requireBearerAuth } from '@modelcontextprotocol/express';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { createResourceServer } from '@portcullis/resource-server';
import { metadataRouter } from '@portcullis/resource-server/express';

const { ISSUER, PORT = '3000', HOST = '127.0.0.1' } = process.env;
if (!ISSUER) throw new Error('Set ISSUER: the authorization server whose access tokens this server accepts');
const RESOURCE = process.env['RESOURCE'] ?? `http://localhost:${PORT}/mcp`;
const resourceServer = createResourceServer({
  resource: RESOURCE,
  authorizationServers: [ISSUER],
  scopesSupported: ['notes:read'],
});

function notesServer(): McpServer {
  const server = new McpServer({ name: 'notes-express', version: '1.0.0' });
  server.registerTool('notes_list', { description: 'Lists your notes' }, async (ctx: ServerContext) => {
    const subject = String(ctx.http?.authInfo?.extra?.['subject']); // the token's `sub`
    return { content: [{ type: 'text', text: `notes of ${subject}: none yet` }] };
  });
  return server;
}
const serve = toNodeHandler(createMcpHandler(notesServer));

const app = createMcpExpressApp({ host: HOST });
app.use(metadataRouter(resourceServer)); // GET /.well-known/oauth-protected-resource/mcp
const { verifier } = resourceServer; // the SDK's OAuthTokenVerifier
const bearer = requireBearerAuth({
  verifier,
  requiredScopes: ['notes:read'],
  resourceMetadataUrl: verifier.resourceMetadataUrl,
});
// `req.auth` (set by requireBearerAuth) reaches the tool handlers as `ctx.http.authInfo`.
app.post(new URL(RESOURCE).pathname, bearer, (req, res) => void serve(req, res, req.body));
app.listen(Number(PORT), HOST, () => console.log(`listening on ${RESOURCE}`));
