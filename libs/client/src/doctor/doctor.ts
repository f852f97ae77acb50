/**
 * `portcullis doctor`: black-box checks of an MCP server's authorization, for a team that plugs
 * `libs/resource-server` into its own server or runs someone else's. Only what any client sees: the 401 challenge,
 * the Protected Resource Metadata, each authorization server's metadata, and, with a token, how the server treats
 * it. Nothing is registered, no authorization is started, and no tool is called unless the person names one
 * (`stepUpTool`) that the token must not be allowed.
 *
 * Rules checked (each line of the report names its section):
 * - RFC 9728 5.1 and MCP "Protected Resource Metadata Discovery Requirements": a 401 with a `Bearer` challenge whose
 *   `resource_metadata` names the metadata; MCP "Scope Selection Strategy": its `scope` tells the client what to ask.
 * - RFC 9728 3.1 and 3.3: the metadata at the path-aware and root well-known URLs, its `resource` the server's URL.
 * - RFC 8414 3 and OpenID Connect Discovery 4, in the order of MCP "Authorization Server Metadata Discovery"; RFC
 *   8414 3.3: `issuer` is the identifier the URL was built from; MCP "Authorization Code Protection": PKCE `S256`;
 *   RFC 9207: `iss` in authorization responses; MCP "Client Registration": client ID metadata documents or dynamic
 *   registration.
 * - RFC 6750 2 and MCP "Access Token Usage": a token only in the `Authorization` header, never in the query string
 *   or a form body; MCP "Token Audience Binding and Validation": a token for another resource refused; RFC 6750 3.1
 *   and MCP "Runtime Insufficient Scope Errors": 403 `insufficient_scope` with the scope needed.
 */
import {
  AuthorizationServerMetadataSchema,
  ProtectedResourceMetadataSchema,
  findUrlProblem,
  type AuthorizationServerMetadata,
  type ProtectedResourceMetadata,
} from '@portcullis/metadata';
import {
  PKCE_METHOD_S256,
  authorizationServerMetadataUrls,
  canonicalizeResourceUri,
  parseWwwAuthenticate,
  protectedResourceMetadataUrls,
  sameIssuerIdentifier,
  type Challenge,
} from '@portcullis/protocol';
import { randomUUID } from 'node:crypto';
import { MAX_JSON_BODY_BYTES, readJsonObject, type FetchLike } from '../http/http.js';

/** What a check found: `skip` when it could not run (no token given, an earlier check failed). */
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

/** Where a rule is written, for the person to read. */
export interface CheckReference {
  readonly label: string;
  readonly url: string;
}

/** One line of the report. */
export interface DoctorCheck {
  /** A stable name, e.g. `challenge.scope`. */
  readonly id: string;
  readonly status: CheckStatus;
  /** What was seen, in one sentence. */
  readonly summary: string;
  readonly reference: CheckReference;
}

export interface DoctorReport {
  /** The MCP server URL checked. */
  readonly server: string;
  readonly checks: readonly DoctorCheck[];
  readonly counts: Readonly<Record<CheckStatus, number>>;
  /** No check failed. */
  readonly ok: boolean;
}

/** A token to present, and for a DPoP-bound one, how to prove possession of its key (RFC 9449 7.1). */
export interface PresentedToken {
  readonly accessToken: string;
  /** `Bearer` (default) or `DPoP`. */
  readonly scheme?: string;
  /** The `DPoP` proof of one request with this token, for a bound token. */
  readonly proof?: (request: {
    method: string;
    url: string;
    accessToken: string;
    nonce?: string;
  }) => Promise<string>;
}

export interface DoctorOptions {
  /** The MCP endpoint, e.g. `https://mcp.example.com/mcp`. */
  readonly serverUrl: string;
  readonly fetch?: FetchLike;
  /** A token for this server: then how the server treats tokens is checked too. */
  readonly token?: PresentedToken;
  /** A token the person knows is for another resource (another audience): it must be refused. */
  readonly wrongAudienceToken?: string;
  /** A tool the token's scope does not allow: calling it must be refused with 403 `insufficient_scope`. */
  readonly stepUpTool?: string;
  /** Per request; default 10 s. */
  readonly timeoutMs?: number;
}

const MCP_SPEC = 'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization';

const mcp = (section: string, anchor: string): CheckReference => ({
  label: `MCP authorization, ${section}`,
  url: `${MCP_SPEC}#${anchor}`,
});
const rfc = (rfcNumber: number, section: string): CheckReference => ({
  label: `RFC ${rfcNumber} ${section}`,
  url: `https://www.rfc-editor.org/rfc/rfc${rfcNumber}#section-${section}`,
});

const REFERENCES = {
  challenge: rfc(9728, '5.1'),
  scopeSelection: mcp('Scope Selection Strategy', 'scope-selection-strategy'),
  prmDiscovery: mcp(
    'Protected Resource Metadata Discovery Requirements',
    'protected-resource-metadata-discovery-requirements',
  ),
  prmResource: rfc(9728, '3.3'),
  prmWellKnown: rfc(9728, '3.1'),
  asDiscovery: mcp('Authorization Server Metadata Discovery', 'authorization-server-metadata-discovery'),
  asIssuer: rfc(8414, '3.3'),
  pkce: mcp('Authorization Code Protection', 'authorization-code-protection'),
  iss: rfc(9207, '2'),
  registration: mcp('Client Registration', 'client-registration'),
  tokenUsage: mcp('Access Token Usage', 'access-token-usage'),
  tokenQuery: rfc(6750, '2.3'),
  tokenBody: rfc(6750, '2.2'),
  audience: mcp('Token Audience Binding and Validation', 'token-audience-binding-and-validation'),
  insufficientScope: mcp('Runtime Insufficient Scope Errors', 'runtime-insufficient-scope-errors'),
} as const;

/** The MCP request every probe sends: `initialize`, which any MCP server answers and which changes nothing. */
function initializeRequest(): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'portcullis-doctor', version: '1.0.0' },
    },
  });
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Runs every check against `options.serverUrl` and reports each. Never throws for what the server answers. */
export async function diagnose(options: DoctorOptions): Promise<DoctorReport> {
  const doctor = new Doctor(options);
  await doctor.run();
  return doctor.report();
}

class Doctor {
  readonly #checks: DoctorCheck[] = [];
  readonly #fetch: FetchLike;
  readonly #timeoutMs: number;
  readonly #server: string;
  /** The latest DPoP nonce the server gave. */
  #nonce: string | undefined;

  constructor(private readonly options: DoctorOptions) {
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#server = options.serverUrl;
  }

  report(): DoctorReport {
    const counts = { pass: 0, warn: 0, fail: 0, skip: 0 };
    for (const check of this.#checks) counts[check.status]++;
    return { server: this.#server, checks: [...this.#checks], counts, ok: counts.fail === 0 };
  }

  async run(): Promise<void> {
    try {
      await this.#run();
    } catch (error) {
      // Whatever the server answered, the report is made: an unforeseen answer is a failed check, not a crash.
      this.#add(
        'doctor.error',
        'fail',
        `The checks stopped: ${describeFailure(error)}.`,
        REFERENCES.challenge,
      );
    }
  }

  async #run(): Promise<void> {
    const challenge = await this.#challenge();
    if (challenge === 'unreachable') return;
    const metadata = await this.#resourceMetadata(challenge?.params['resource_metadata']);
    if (metadata !== undefined) {
      for (const issuer of metadata.authorization_servers.slice(0, 5))
        await this.#authorizationServer(issuer);
    }
    await this.#token();
  }

  #add(id: string, status: CheckStatus, summary: string, reference: CheckReference): void {
    this.#checks.push({ id, status, summary, reference });
  }

  async #request(url: string, init: RequestInit = {}): Promise<Response> {
    return this.#fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(this.#timeoutMs), ...init });
  }

  /** The 401 without a token and its challenge; `unreachable` when the server did not answer at all. */
  async #challenge(): Promise<Challenge | undefined | 'unreachable'> {
    let response: Response;
    try {
      response = await this.#request(this.#server, {
        method: 'POST',
        headers: MCP_HEADERS,
        body: initializeRequest(),
      });
    } catch (error) {
      this.#add(
        'server.reachable',
        'fail',
        `${this.#server} did not answer: ${describeFailure(error)}.`,
        REFERENCES.challenge,
      );
      return 'unreachable';
    }
    await response.body?.cancel();
    if (response.status !== 401) {
      this.#add(
        'challenge.status',
        'fail',
        `An MCP request without a token got HTTP ${response.status}, not 401: the server does not ask for authorization.`,
        REFERENCES.challenge,
      );
    } else {
      this.#add('challenge.status', 'pass', 'An MCP request without a token gets 401.', REFERENCES.challenge);
    }
    const challenge = authChallenge(response);
    if (challenge === undefined) {
      this.#add(
        'challenge.scheme',
        'fail',
        `No Bearer challenge in WWW-Authenticate (${response.headers.get('www-authenticate') ?? 'absent'}).`,
        REFERENCES.challenge,
      );
      return undefined;
    }
    this.#add(
      'challenge.scheme',
      'pass',
      `WWW-Authenticate carries a ${challenge.scheme === 'dpop' ? 'DPoP' : 'Bearer'} challenge.`,
      REFERENCES.challenge,
    );
    const metadataUrl = challenge.params['resource_metadata'];
    if (metadataUrl === undefined) {
      this.#add(
        'challenge.resource_metadata',
        'warn',
        'The challenge has no resource_metadata: clients must guess the well-known URLs (2025-06-18 clients cannot).',
        REFERENCES.prmDiscovery,
      );
    } else {
      const problem = findUrlProblem(metadataUrl, { schemes: ['https', 'http'], httpsUnlessLoopback: true });
      this.#add(
        'challenge.resource_metadata',
        problem === undefined ? 'pass' : 'fail',
        problem === undefined
          ? `resource_metadata="${metadataUrl}".`
          : `resource_metadata="${metadataUrl}" is not a URL a client may fetch (${problem}).`,
        REFERENCES.challenge,
      );
    }
    const scope = challenge.params['scope'];
    this.#add(
      'challenge.scope',
      scope === undefined || scope.trim() === '' ? 'warn' : 'pass',
      scope === undefined || scope.trim() === ''
        ? 'The challenge names no scope: clients fall back to scopes_supported, or ask for none.'
        : `scope="${scope}".`,
      REFERENCES.scopeSelection,
    );
    return challenge;
  }

  /** The Protected Resource Metadata at each well-known URL (and the challenge's); the one clients would use. */
  async #resourceMetadata(fromChallenge: string | undefined): Promise<ProtectedResourceMetadata | undefined> {
    const canonical = canonicalizeResourceUri(this.#server);
    // One URL for a server at the root of its origin; else the path-aware one, then the root one.
    const urls = protectedResourceMetadataUrls(canonical);
    const root = urls[urls.length - 1] ?? canonical;
    const pathAware = urls.length > 1 ? urls[0] : undefined;
    const origin = canonicalizeResourceUri(new URL(canonical).origin);
    type Found = { url: string; document: ProtectedResourceMetadata };
    const found: Found[] = [];
    const fetchDocument = async (url: string, id: string, acceptOrigin: boolean, missing: CheckStatus) => {
      const outcome = await this.#getJson(url);
      if (outcome.kind === 'missing') {
        this.#add(id, missing, `Nothing at ${url} (HTTP ${outcome.status}).`, REFERENCES.prmWellKnown);
        return;
      }
      if (outcome.kind === 'error') {
        this.#add(id, 'fail', `${url}: ${outcome.message}`, REFERENCES.prmWellKnown);
        return;
      }
      const parsed = ProtectedResourceMetadataSchema.safeParse(outcome.json);
      if (!parsed.success) {
        this.#add(
          id,
          'fail',
          `${url} is not valid Protected Resource Metadata: ${parsed.error.issues[0]?.message ?? 'invalid'}.`,
          REFERENCES.prmWellKnown,
        );
        return;
      }
      let resource: string;
      try {
        resource = canonicalizeResourceUri(parsed.data.resource);
      } catch (error) {
        this.#add(
          id,
          'fail',
          `${url} names resource "${parsed.data.resource}", which is not a usable resource URI (${describeFailure(error)}).`,
          REFERENCES.prmResource,
        );
        return;
      }
      if (resource === canonical || (acceptOrigin && resource === origin)) {
        this.#add(id, 'pass', `${url} names resource "${parsed.data.resource}".`, REFERENCES.prmResource);
        found.push({ url, document: parsed.data });
      } else {
        this.#add(
          id,
          'fail',
          `${url} names resource "${parsed.data.resource}", not ${canonical}: clients must refuse it.`,
          REFERENCES.prmResource,
        );
      }
    };
    if (pathAware !== undefined) await fetchDocument(pathAware, 'prm.path-aware', false, 'warn');
    // At the root, for a server at a path, the document may describe the origin (clients that fall back to it
    // accept that), unless the challenge sent clients there: then it must name the server (RFC 9728 3.3). Missing
    // there is fine once the path-aware one is there.
    await fetchDocument(
      root,
      'prm.root',
      pathAware !== undefined && fromChallenge !== root,
      pathAware !== undefined && found.length > 0 ? 'skip' : 'warn',
    );
    if (fromChallenge !== undefined && fromChallenge !== pathAware && fromChallenge !== root) {
      if (
        findUrlProblem(fromChallenge, { schemes: ['https', 'http'], httpsUnlessLoopback: true }) === undefined
      ) {
        await fetchDocument(fromChallenge, 'prm.challenge-url', false, 'fail');
      }
    }
    const used =
      found.find((entry) => entry.url === fromChallenge) ??
      found.find((entry) => entry.url !== root) ??
      found[0];
    if (used === undefined) {
      this.#add(
        'prm.found',
        'fail',
        'No usable Protected Resource Metadata: clients cannot find the authorization server.',
        REFERENCES.prmDiscovery,
      );
      return undefined;
    }
    this.#add(
      'prm.authorization_servers',
      'pass',
      `Authorization servers: ${used.document.authorization_servers.join(', ')}.`,
      REFERENCES.prmDiscovery,
    );
    const scopes = used.document.scopes_supported;
    this.#add(
      'prm.scopes_supported',
      scopes === undefined || scopes.length === 0 ? 'warn' : 'pass',
      scopes === undefined || scopes.length === 0
        ? 'No scopes_supported: a client without a scope in the challenge asks for no scope.'
        : `scopes_supported: ${scopes.join(' ')}.`,
      REFERENCES.scopeSelection,
    );
    return used.document;
  }

  /** One authorization server's metadata by every discovery URL, in the specification's order, and what it offers. */
  async #authorizationServer(issuer: string): Promise<void> {
    let urls: string[];
    try {
      urls = authorizationServerMetadataUrls(issuer);
    } catch (error) {
      this.#add(
        'as.issuer',
        'fail',
        `"${issuer}" is not an issuer identifier: ${describeFailure(error)}.`,
        REFERENCES.asIssuer,
      );
      return;
    }
    let metadata: AuthorizationServerMetadata | undefined;
    for (const url of urls) {
      // Clients stop at the first usable document: a broken one after it is worth a warning, not a failure.
      const broken: CheckStatus = metadata === undefined ? 'fail' : 'warn';
      const outcome = await this.#getJson(url);
      if (outcome.kind === 'missing') {
        this.#add(
          'as.discovery',
          'skip',
          `${url}: not published (HTTP ${outcome.status}).`,
          REFERENCES.asDiscovery,
        );
        continue;
      }
      if (outcome.kind === 'error') {
        this.#add('as.discovery', broken, `${url}: ${outcome.message}`, REFERENCES.asDiscovery);
        continue;
      }
      const parsed = AuthorizationServerMetadataSchema.safeParse(outcome.json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        this.#add(
          'as.discovery',
          broken,
          `${url} is not valid authorization server metadata: ${issue ? `${issue.path.join('.')} ${issue.message}` : 'invalid'}.`,
          REFERENCES.asDiscovery,
        );
        continue;
      }
      if (!sameIssuerIdentifier(issuer, parsed.data.issuer)) {
        this.#add(
          'as.discovery',
          broken,
          `${url} says issuer "${parsed.data.issuer}", not "${issuer}": clients must not use it.`,
          REFERENCES.asIssuer,
        );
        continue;
      }
      this.#add('as.discovery', 'pass', `${url}: metadata of ${issuer}.`, REFERENCES.asDiscovery);
      metadata ??= parsed.data;
    }
    if (metadata === undefined) {
      this.#add(
        'as.metadata',
        'fail',
        `No usable metadata for ${issuer} at any discovery URL.`,
        REFERENCES.asDiscovery,
      );
      return;
    }
    const methods = metadata.code_challenge_methods_supported;
    this.#add(
      'as.pkce',
      methods?.includes(PKCE_METHOD_S256) ? 'pass' : 'fail',
      methods?.includes(PKCE_METHOD_S256)
        ? `${issuer} supports PKCE with S256.`
        : `${issuer} does not list S256 in code_challenge_methods_supported (${methods?.join(', ') ?? 'absent'}): MCP clients must refuse it.`,
      REFERENCES.pkce,
    );
    const iss = metadata['authorization_response_iss_parameter_supported'] === true;
    this.#add(
      'as.iss',
      iss ? 'pass' : 'warn',
      iss
        ? `${issuer} puts iss in authorization responses.`
        : `${issuer} does not say it sends iss in authorization responses: clients cannot detect mix-up attacks.`,
      REFERENCES.iss,
    );
    const metadataDocuments = metadata['client_id_metadata_document_supported'] === true;
    this.#add(
      'as.client_id_metadata_document',
      metadataDocuments ? 'pass' : 'warn',
      metadataDocuments
        ? `${issuer} accepts client ID metadata documents.`
        : `${issuer} does not accept client ID metadata documents.`,
      REFERENCES.registration,
    );
    const registration = typeof metadata.registration_endpoint === 'string';
    this.#add(
      'as.registration',
      registration || metadataDocuments ? 'pass' : 'warn',
      registration
        ? `${issuer} offers dynamic client registration.`
        : metadataDocuments
          ? `${issuer} offers no dynamic registration (client ID metadata documents are enough).`
          : `${issuer} offers neither dynamic registration nor client ID metadata documents: every client needs a pre-registered ID.`,
      REFERENCES.registration,
    );
  }

  /** How the server treats tokens: the one given, in the header only; another audience's; too little scope. */
  async #token(): Promise<void> {
    const token = this.options.token;
    if (token === undefined) {
      this.#add(
        'token',
        'skip',
        'No token: give --token (or run `portcullis login` first) to check how the server treats tokens.',
        REFERENCES.tokenUsage,
      );
      return;
    }
    const accepted = await this.#present(token, this.#server);
    const sessionId = accepted?.headers.get('mcp-session-id') ?? undefined;
    if (accepted === undefined || !accepted.ok) {
      this.#add(
        'token.accepted',
        'fail',
        accepted === undefined
          ? 'The request with the token did not get an answer.'
          : `The token was refused (HTTP ${accepted.status}${errorOf(accepted)}): the checks that need an accepted token are skipped.`,
        REFERENCES.tokenUsage,
      );
      return;
    }
    this.#add(
      'token.accepted',
      'pass',
      `The token in the Authorization header is accepted (HTTP ${accepted.status}).`,
      REFERENCES.tokenUsage,
    );
    // Where else a server might read a token: probed with a made-up token, so that no live token ends up in a URL
    // or a log. A server that looks there says `invalid_token` about it (RFC 6750 3.1); one that does not answers as
    // to a request without a token.
    const decoy = `portcullis-doctor-${randomUUID()}`;
    const inQuery = new URL(this.#server);
    inQuery.searchParams.set('access_token', decoy);
    this.#placement(
      'token.query',
      'in the query string',
      await this.#send(inQuery.href, { method: 'POST', headers: MCP_HEADERS, body: initializeRequest() }),
      REFERENCES.tokenQuery,
    );
    this.#placement(
      'token.body',
      'in a form body',
      await this.#send(this.#server, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: MCP_HEADERS.accept },
        body: new URLSearchParams({ access_token: decoy }).toString(),
      }),
      REFERENCES.tokenBody,
    );
    await this.#wrongAudience();
    await this.#insufficientScope(token, sessionId);
    if (sessionId !== undefined) await this.#endSession(token, sessionId);
  }

  /**
   * What a request with a made-up token `where` got: refused as carrying no token (401 without an error) or as a
   * bad request (400 `invalid_request`) passes; `invalid_token` (the server read it) or a success fails; anything
   * else cannot tell.
   */
  #placement(id: string, where: string, response: Response | undefined, reference: CheckReference): void {
    if (response === undefined) {
      this.#add(id, 'warn', `A request with a token ${where} got no answer.`, reference);
      return;
    }
    const error = authChallenge(response)?.params['error'];
    if (response.ok || error === 'invalid_token') {
      const seen = response.ok
        ? `was accepted (HTTP ${response.status})`
        : 'was read and checked (401 invalid_token)';
      this.#add(
        id,
        'fail',
        `A made-up token ${where} ${seen}: the server takes tokens from there, where they end up in logs.`,
        reference,
      );
    } else if (
      (response.status === 401 && error === undefined) ||
      (response.status === 400 && error === 'invalid_request')
    ) {
      this.#add(
        id,
        'pass',
        `A token ${where} is not used (HTTP ${response.status}${error ? ` ${error}` : ', as without a token'}).`,
        reference,
      );
    } else {
      this.#add(
        id,
        'warn',
        `A request with a token ${where} got HTTP ${response.status}${error ? ` ${error}` : ''}: cannot tell whether the server reads tokens there.`,
        reference,
      );
    }
  }

  /** One request whose body is not needed; `undefined` when it got no answer. */
  async #send(url: string, init: RequestInit): Promise<Response | undefined> {
    try {
      const response = await this.#request(url, init);
      await response.body?.cancel();
      return response;
    } catch {
      return undefined;
    }
  }

  async #wrongAudience(): Promise<void> {
    const other = this.options.wrongAudienceToken;
    if (other === undefined) {
      this.#add(
        'token.audience',
        'skip',
        'Give --wrong-audience-token with a token issued for another resource to check that it is refused.',
        REFERENCES.audience,
      );
      return;
    }
    const response = await this.#present({ accessToken: other }, this.#server);
    if (response === undefined) {
      this.#add('token.audience', 'fail', 'The request did not get an answer.', REFERENCES.audience);
      return;
    }
    const challenge = authChallenge(response);
    this.#add(
      'token.audience',
      response.status === 401 ? 'pass' : 'fail',
      response.status === 401
        ? `A token for another resource is refused (401${challenge?.params['error'] ? ` ${challenge.params['error']}` : ''}).`
        : `A token for another resource got HTTP ${response.status}, not 401: the server does not check the audience.`,
      REFERENCES.audience,
    );
  }

  async #insufficientScope(token: PresentedToken, sessionId: string | undefined): Promise<void> {
    const tool = this.options.stepUpTool;
    if (tool === undefined) {
      this.#add(
        'token.insufficient_scope',
        'skip',
        'Give --step-up-tool with a tool this token may not call to check the 403 insufficient_scope answer.',
        REFERENCES.insufficientScope,
      );
      return;
    }
    const headers: Record<string, string> = sessionId === undefined ? {} : { 'mcp-session-id': sessionId };
    if (sessionId !== undefined) {
      const initialized = await this.#present(token, this.#server, {
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      });
      await initialized?.body?.cancel();
    }
    const call = await this.#present(token, this.#server, {
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: tool, arguments: {} },
      }),
    });
    if (call === undefined) {
      this.#add(
        'token.insufficient_scope',
        'fail',
        'The tool call did not get an answer.',
        REFERENCES.insufficientScope,
      );
      return;
    }
    const challenge = authChallenge(call);
    const error = challenge?.params['error'];
    const scope = challenge?.params['scope'];
    if (call.status === 403 && error === 'insufficient_scope' && scope) {
      this.#add(
        'token.insufficient_scope',
        'pass',
        `Calling ${tool} gets 403 insufficient_scope naming scope="${scope}".`,
        REFERENCES.insufficientScope,
      );
    } else if (call.status === 403 && error === 'insufficient_scope') {
      this.#add(
        'token.insufficient_scope',
        'warn',
        `Calling ${tool} gets 403 insufficient_scope without the scope it needs: clients cannot step up.`,
        REFERENCES.insufficientScope,
      );
    } else {
      this.#add(
        'token.insufficient_scope',
        'fail',
        `Calling ${tool} got HTTP ${call.status}${error ? ` ${error}` : ''}, not 403 insufficient_scope: either the token may call it (name a tool it may not) or the server answers scope errors in a way clients cannot act on.`,
        REFERENCES.insufficientScope,
      );
    }
  }

  /** A POST of `init.body` (default: `initialize`) with the token as its scheme says, and a proof if it is bound. */
  async #present(
    token: PresentedToken,
    url: string,
    init: { headers?: Record<string, string>; body?: string } = {},
  ): Promise<Response | undefined> {
    const scheme = token.scheme ?? 'Bearer';
    const headers: Record<string, string> = {
      ...MCP_HEADERS,
      ...init.headers,
      authorization: `${scheme} ${token.accessToken}`,
    };
    const send = async (nonce?: string): Promise<Response> => {
      if (token.proof !== undefined) {
        headers['dpop'] = await token.proof({
          method: 'POST',
          url,
          accessToken: token.accessToken,
          ...(nonce === undefined ? {} : { nonce }),
        });
      }
      return this.#request(url, { method: 'POST', headers, body: init.body ?? initializeRequest() });
    };
    try {
      let response = await send(this.#nonce);
      // A server that wants its nonce in DPoP proofs says so once (RFC 9449 9): the request is made again with it.
      const nonce = response.headers.get('dpop-nonce') ?? undefined;
      if (token.proof !== undefined && nonce !== undefined) {
        this.#nonce = nonce;
        if (response.status === 401 && wantsNonce(response)) {
          await response.body?.cancel();
          response = await send(nonce);
        }
      }
      // What the checks read is the status and the headers; the body (maybe an event stream) is not needed.
      await response.body?.cancel();
      return response;
    } catch {
      return undefined;
    }
  }

  async #endSession(token: PresentedToken, sessionId: string): Promise<void> {
    try {
      const headers: Record<string, string> = {
        authorization: `${token.scheme ?? 'Bearer'} ${token.accessToken}`,
        'mcp-session-id': sessionId,
      };
      if (token.proof !== undefined) {
        headers['dpop'] = await token.proof({
          method: 'DELETE',
          url: this.#server,
          accessToken: token.accessToken,
          ...(this.#nonce === undefined ? {} : { nonce: this.#nonce }),
        });
      }
      const response = await this.#request(this.#server, { method: 'DELETE', headers });
      await response.body?.cancel();
    } catch {
      // Best effort: the session expires on its own.
    }
  }

  async #getJson(
    url: string,
  ): Promise<
    | { kind: 'found'; json: unknown }
    | { kind: 'missing'; status: number }
    | { kind: 'error'; message: string }
  > {
    let response: Response;
    try {
      response = await this.#request(url, { headers: { accept: 'application/json' } });
    } catch (error) {
      return { kind: 'error', message: `no answer (${describeFailure(error)}).` };
    }
    if (response.status >= 400 && response.status < 500) {
      await response.body?.cancel();
      return { kind: 'missing', status: response.status };
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      return {
        kind: 'error',
        message: `HTTP ${response.status}${response.status >= 300 && response.status < 400 ? ' (a redirect; clients do not follow it)' : ''}.`,
      };
    }
    const json = await readJsonObject(response);
    return json === undefined
      ? {
          kind: 'error',
          message: `the body is not a JSON object of at most ${MAX_JSON_BODY_BYTES / 1024} KiB.`,
        }
      : { kind: 'found', json };
  }
}

/** The response's Bearer (or DPoP) challenge: the first of them in `WWW-Authenticate`. */
function authChallenge(response: Response): Challenge | undefined {
  const header = response.headers.get('www-authenticate');
  if (header === null) return undefined;
  return parseWwwAuthenticate(header).find((challenge) => ['bearer', 'dpop'].includes(challenge.scheme));
}

/** Whether a challenge of the response is DPoP's `use_dpop_nonce` (RFC 9449 9). */
function wantsNonce(response: Response): boolean {
  const header = response.headers.get('www-authenticate');
  return (
    header !== null &&
    parseWwwAuthenticate(header).some((challenge) => challenge.params['error'] === 'use_dpop_nonce')
  );
}

function errorOf(response: Response): string {
  const error = authChallenge(response)?.params['error'];
  return error === undefined ? '' : `, ${error}`;
}

function describeFailure(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
