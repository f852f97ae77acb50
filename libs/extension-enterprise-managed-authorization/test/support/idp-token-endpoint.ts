// A loopback enterprise IdP token endpoint for the client strategy's tests: it records every token exchange request
// and answers as the test says, and `run` drives `idJagStrategy` against it with a context whose `requestToken`
// records the jwt-bearer request it would send to the MCP authorization server.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from '@jest/globals';
import type { ClientGrantContext, TokenResponse } from '@portcullis/extensions';
import { generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { ID_JAG_TOKEN_TYPE } from '../../src/constants.js';
import { IdJagError } from '../../src/client/id-jag.error.js';
import type { IdJagStrategyOptions } from '../../src/client/id-jag-strategy.options.js';
import { idJagStrategy } from '../../src/client/id-jag.strategy.js';

export const ISSUER = 'https://as.example.com';
export const RESOURCE = 'https://mcp.example.com/mcp';

/** A token exchange request as the IdP received it. */
export interface Recorded {
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly params: Record<string, string>;
  /** Parameters sent more than once. */
  readonly repeated: string[];
}

export type Answer = { status: number; body: unknown; headers?: Record<string, string> };

/** What a run of the strategy sent to the MCP authorization server, and how it ended. */
export interface Run {
  readonly sent: Record<string, string>[];
  readonly result?: TokenResponse;
  readonly error?: unknown;
}

/** The IdP of one spec file; its state is reset before each test (no request, a valid ID-JAG answered). */
export interface IdpTokenEndpoint {
  readonly url: string;
  readonly requests: Recorded[];
  answer: (request: Recorded) => Answer;
  /** The ID-JAG the default answer carries (typ oauth-id-jag+jwt); a test may replace it. */
  idJag: string;
  /** The user's ID token the strategy exchanges. */
  readonly idToken: string;
  /** A JWT signed by the IdP's key, with `typ` when given. */
  jwt(typ: string | undefined, claims?: Record<string, unknown>): Promise<string>;
  /** Runs the strategy (IdP client `idp-client` with secret `idp-secret` unless `options` say otherwise). */
  run(options?: Partial<IdJagStrategyOptions>, scope?: string[]): Promise<Run>;
}

/** Starts the IdP for the spec file that calls it (in its top level), and stops it after. */
export function useIdpTokenEndpoint(): IdpTokenEndpoint {
  let server: Server;
  let privateKey: CryptoKey;
  const state = {
    url: '',
    requests: [] as Recorded[],
    idToken: '',
    idJag: '',
    answer: (() => ({ status: 500, body: {} })) as (request: Recorded) => Answer,
  };
  const jwt = (typ: string | undefined, claims: Record<string, unknown> = {}): Promise<string> =>
    new SignJWT(claims)
      .setProtectedHeader(typ === undefined ? { alg: 'ES256' } : { alg: 'ES256', typ })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);

  beforeAll(async () => {
    ({ privateKey } = await generateKeyPair('ES256'));
    state.idToken = await jwt(undefined, { iss: 'https://idp.example.com', sub: 'alice', aud: 'idp-client' });
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const keys = [...form.keys()];
        const recorded: Recorded = {
          method: request.method,
          path: request.url,
          headers: request.headers,
          params: Object.fromEntries(form),
          repeated: keys.filter((key, index) => keys.indexOf(key) !== index),
        };
        state.requests.push(recorded);
        const { status, body, headers } = state.answer(recorded);
        response
          .writeHead(status, { 'content-type': 'application/json', ...headers })
          .end(typeof body === 'string' ? body : JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  });

  beforeEach(async () => {
    state.requests.length = 0;
    state.idJag = await jwt('oauth-id-jag+jwt', {
      sub: 'alice',
      aud: ISSUER,
      resource: RESOURCE,
      client_id: 'mcp-client',
    });
    state.answer = () => ({
      status: 200,
      body: {
        access_token: state.idJag,
        issued_token_type: ID_JAG_TOKEN_TYPE,
        token_type: 'N_A',
        expires_in: 300,
      },
    });
  });

  async function run(
    options: Partial<IdJagStrategyOptions> = {},
    scope: string[] = ['notes:read', 'notes:write'],
  ): Promise<Run> {
    const strategy = idJagStrategy({
      idToken: state.idToken,
      idpTokenEndpoint: `${state.url}/oauth2/token`,
      idpClientId: 'idp-client',
      idpClientSecret: 'idp-secret',
      ...options,
    });
    const sent: Record<string, string>[] = [];
    const context: ClientGrantContext = {
      issuer: ISSUER,
      authorizationServerMetadata: {},
      resource: RESOURCE,
      scope,
      revision: '2026-07-28',
      requestToken: async (params) => {
        sent.push({ ...params });
        return { access_token: 'mcp-at', token_type: 'Bearer' };
      },
      fetch: (input, init) => fetch(input, init),
    };
    try {
      return { sent, result: await strategy.obtainToken(context) };
    } catch (error) {
      return { sent, error };
    }
  }

  return Object.assign(state, { jwt, run }) as IdpTokenEndpoint;
}

/** The client ID and secret of a Basic `Authorization` header, each form-decoded (RFC 6749 2.3.1). */
export function basic(header: string | undefined): [string, string] | undefined {
  if (header === undefined || !header.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return [
    decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
    decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
  ];
}

/** What an {@link IdJagError} says: its code, message and the IdP's error; throws for anything else. */
export function failure(error: unknown): {
  code?: string;
  message: string;
  error?: string;
  description?: string;
} {
  if (!(error instanceof IdJagError)) throw new Error(`expected an IdJagError, got ${String(error)}`);
  return {
    code: error.code,
    message: error.message,
    ...(error.idpError === undefined ? {} : { error: error.idpError.error }),
    ...(error.idpError?.errorDescription === undefined
      ? {}
      : { description: error.idpError.errorDescription }),
  };
}
