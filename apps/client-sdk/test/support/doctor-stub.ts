// A stub MCP server and its authorization server's metadata on one origin, correct unless `faults` plant one thing
// wrong at a time, for `portcullis doctor` tests. It speaks the 2025 era by answering any authorized request (the
// hand-written stub); with `era: 'modern'`, only 2026-07-28 through the official SDK's `createMcpHandler` with
// `legacy: 'reject'` behind its bearer check (a 2026-07-28-only server, which answers `initialize` with 400); with
// `era: 'legacy-sessions'`, only the 2025 era through the SDK's session transport (which refuses anything but
// `initialize` without a session, and checks `MCP-Protocol-Version` after it). With `tls`, it is served over https.
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isInitializeRequest,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
  type McpHandlerRequestOptions,
} from '@modelcontextprotocol/server';
import type { TestCertificates } from '@portcullis/testing';
import { Agent, fetch as undiciFetch } from 'undici';

export type Fault =
  | 'no-prm'
  | 'wrong-resource'
  | 'no-scope'
  | 'query-token'
  | 'no-s256'
  | 'audience-unchecked'
  | 'broken-openid-configuration'
  | 'origin-metadata-at-root'
  | 'issuer-trailing-slash'
  | 'root-metadata-other-server'
  | 'offline-access-in-resource'
  | 'cimd-without-none'
  | 'no-iss'
  | 'no-cors-expose'
  | 'http-endpoint';

export const GOOD = 'good-token';
export const OTHER_AUDIENCE = 'token-for-another-resource';
/** The tool the good token may not call. */
export const STEP_UP_TOOL = 'notes_create';
/** An origin the stub serves browser clients from (the doctor's default, the MCP Inspector's). */
const BROWSER_ORIGINS = ['http://localhost:6274'];

export interface DoctorStubOptions {
  readonly era?: 'legacy' | 'modern' | 'legacy-sessions';
  readonly tls?: TestCertificates;
}

export interface DoctorStub {
  /** The MCP endpoint. */
  readonly url: string;
  /** A `fetch` that trusts the stub's certificate (the platform's for plain http). */
  readonly fetch: typeof fetch;
  /** With `era: 'legacy-sessions'`: the sessions open now. */
  readonly openSessions: () => number;
  close(): Promise<void>;
}

/** The stub's MCP server: two tools. */
function notesServer(): McpServer {
  const server = new McpServer({ name: 'doctor-stub', version: '1.0.0' });
  server.registerTool('notes_list', { description: 'Lists notes.' }, async () => ({
    content: [{ type: 'text', text: '[]' }],
  }));
  server.registerTool(STEP_UP_TOOL, { description: 'Creates a note.' }, async () => ({
    content: [{ type: 'text', text: 'created' }],
  }));
  return server;
}

/** The 2026-07-28-only MCP server, served by the SDK per request. */
function modernHandler() {
  const handler = createMcpHandler(notesServer, { legacy: 'reject' });
  return { node: toNodeHandler(handler), close: () => handler.close(), sessions: () => 0 };
}

/** The 2025-era-only MCP server with sessions, as the SDK's session transport serves it. */
function sessionHandler() {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const route = async (request: Request, options?: McpHandlerRequestOptions): Promise<Response> => {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId !== null) {
      const transport = sessions.get(sessionId);
      return transport === undefined
        ? Response.json(
            { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
            { status: 404 },
          )
        : transport.handleRequest(request, options);
    }
    if (request.method !== 'POST' || !isInitializeRequest(options?.parsedBody)) {
      return Response.json(
        {
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' },
          id: null,
        },
        { status: 400 },
      );
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await notesServer().connect(transport);
    return transport.handleRequest(request, options);
  };
  return {
    node: toNodeHandler({ fetch: route }),
    close: async () => {
      for (const transport of sessions.values()) await transport.close();
    },
    sessions: () => sessions.size,
  };
}

export async function startDoctorStub(
  faults: readonly Fault[] = [],
  options: DoctorStubOptions = {},
): Promise<DoctorStub> {
  let origin = '';
  const has = (fault: Fault) => faults.includes(fault);
  const sdk =
    options.era === 'modern'
      ? modernHandler()
      : options.era === 'legacy-sessions'
        ? sessionHandler()
        : undefined;
  const json = (
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
  const cors = (request: IncomingMessage): Record<string, string> => {
    const from = request.headers.origin;
    if (from === undefined || !BROWSER_ORIGINS.includes(from)) return {};
    return {
      'access-control-allow-origin': from,
      vary: 'Origin',
      ...(has('no-cors-expose')
        ? {}
        : { 'access-control-expose-headers': 'WWW-Authenticate, Mcp-Session-Id' }),
    };
  };
  const issuer = () => (has('issuer-trailing-slash') ? `${origin}/` : origin);
  const challenge = (extra: string) =>
    [
      'Bearer realm="mcp"',
      ...(has('no-prm')
        ? []
        : has('origin-metadata-at-root')
          ? [`resource_metadata="${origin}/.well-known/oauth-protected-resource"`]
          : [`resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`]),
      ...(has('no-scope') ? [] : ['scope="notes:read"']),
      ...(extra ? [extra] : []),
    ].join(', ');
  const handle = async (request: IncomingMessage, response: ServerResponse, body: string) => {
    const url = new URL(request.url ?? '/', origin);
    const get = (path: string) => request.method === 'GET' && url.pathname === path;
    if (get('/.well-known/oauth-protected-resource/mcp') && !has('no-prm')) {
      return json(response, 200, {
        resource: has('wrong-resource') ? 'https://other.example/mcp' : `${origin}/mcp`,
        authorization_servers: [issuer()],
        scopes_supported: [
          'notes:read',
          'notes:write',
          ...(has('offline-access-in-resource') ? ['offline_access'] : []),
        ],
      });
    }
    if (get('/.well-known/oauth-protected-resource') && has('origin-metadata-at-root')) {
      // The origin's metadata, where the challenge sends clients for the MCP endpoint's.
      return json(response, 200, { resource: origin, authorization_servers: [origin] });
    }
    if (get('/.well-known/oauth-protected-resource') && has('root-metadata-other-server')) {
      // The origin's metadata, naming another authorization server than the MCP endpoint's.
      return json(response, 200, { resource: origin, authorization_servers: ['http://127.0.0.1:9/other'] });
    }
    if (get('/.well-known/openid-configuration') && has('broken-openid-configuration')) {
      response.writeHead(502, { 'content-type': 'text/html' });
      return response.end('<html>bad gateway</html>');
    }
    if (get('/.well-known/oauth-authorization-server')) {
      const endpoint = (name: string) =>
        has('http-endpoint') && name === 'token'
          ? `${origin.replace(/^https:/, 'http:')}/token`
          : `${origin}/${name}`;
      return json(response, 200, {
        issuer: origin,
        authorization_endpoint: endpoint('authorize'),
        token_endpoint: endpoint('token'),
        registration_endpoint: endpoint('register'),
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: has('no-s256') ? ['plain'] : ['S256'],
        token_endpoint_auth_methods_supported: has('cimd-without-none') ? ['client_secret_basic'] : ['none'],
        scopes_supported: ['notes:read', 'notes:write', 'offline_access'],
        ...(has('no-iss') ? {} : { authorization_response_iss_parameter_supported: true }),
        client_id_metadata_document_supported: true,
      });
    }
    if (url.pathname !== '/mcp') return json(response, 404, { error: 'not_found' });
    if (request.method === 'OPTIONS') {
      response.writeHead(204, {
        ...cors(request),
        'access-control-allow-methods': 'POST, GET, DELETE',
        'access-control-allow-headers':
          'Authorization, Content-Type, DPoP, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name',
      });
      return response.end();
    }
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ')
      ? header.slice('Bearer '.length)
      : has('query-token')
        ? (url.searchParams.get('access_token') ?? '')
        : '';
    const accepted = token === GOOD || (token === OTHER_AUDIENCE && has('audience-unchecked'));
    if (!accepted) {
      return json(
        response,
        401,
        { error: 'invalid_token' },
        { ...cors(request), 'www-authenticate': challenge(token ? 'error="invalid_token"' : '') },
      );
    }
    let message: { id?: number; method?: string; params?: { name?: string } } = {};
    try {
      message = body ? (JSON.parse(body) as typeof message) : {};
    } catch {
      return json(response, 400, { error: 'invalid_request' });
    }
    if (message.method === 'tools/call' && message.params?.name === STEP_UP_TOOL) {
      return json(
        response,
        403,
        { error: 'insufficient_scope' },
        { 'www-authenticate': 'Bearer error="insufficient_scope", scope="notes:read notes:write"' },
      );
    }
    if (sdk !== undefined) return sdk.node(request, response, body ? message : undefined);
    return json(response, 200, { jsonrpc: '2.0', id: message.id ?? null, result: {} });
  };
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      handle(request, response, body).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500);
        response.end(String(error));
      });
    });
  };
  const server = options.tls
    ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, listener)
    : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = options.tls ? new Agent({ connect: { ca: options.tls.ca } }) : undefined;
  return {
    url: `${origin}/mcp`,
    fetch:
      agent === undefined
        ? fetch
        : (((input: string | URL | Request, init?: RequestInit) =>
            undiciFetch(input as string, {
              ...(init as object),
              dispatcher: agent,
            })) as unknown as typeof fetch),
    openSessions: () => sdk?.sessions() ?? 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agent?.close();
      await sdk?.close();
    },
  };
}
