// Replays one shipping client end to end, the way it runs against a new MCP server: the unauthenticated request and
// its 401 challenge, the resource's metadata (RFC 9728), the authorization server's (RFC 8414), a metadata document
// or its registration body, the authorization request with its own parameters, the person at the browser (login and
// consent, answered by the test), the redirect (its loopback listener, or the Location a hosted or private-use
// redirect would take), the token request with its own client authentication, and tool calls with the token.
// Every step that the server refuses throws a ShippingClientError carrying the server's answer.
import { randomBytes } from 'node:crypto';
import {
  authorizationServerMetadataUrls,
  codeChallengeS256,
  generateCodeVerifier,
  parseWwwAuthenticate,
  protectedResourceMetadataUrls,
  type Challenge,
} from '@portcullis/protocol';
import { startCallbackServer } from './callback-server.js';
import { callNotesTools, type NotesToolCalls } from './notes-tool-calls.js';
import type {
  ClientAuthentication,
  Discovery,
  RedirectPlan,
  RegistrationChoice,
  ShippingClient,
} from './shipping-client.js';

/**
 * The person at the browser: walks from the authorization URL through the server's pages and returns where the
 * server finally sent the browser (a redirect to `redirectUri`, not requested).
 */
export type Person = (authorizationUrl: string, redirectUri: string) => Promise<URL>;

/** A step of the flow the server (or the replay) refused, with what the server answered. */
export class ShippingClientError extends Error {
  constructor(
    readonly client: string,
    readonly step: string,
    readonly status: number | undefined,
    readonly answer: unknown,
  ) {
    super(
      `${client}: ${step} failed${status === undefined ? '' : ` (HTTP ${status})`}: ${JSON.stringify(answer)}`,
    );
    this.name = 'ShippingClientError';
  }
}

/** Everything a replay sent and received, for the test to check. */
export interface ShippingClientRun {
  readonly discovery: Discovery;
  readonly choice: RegistrationChoice;
  readonly clientId: string;
  /** The registration response (dynamic registration only). */
  readonly registration?: {
    readonly request: Record<string, unknown>;
    readonly response: Record<string, unknown>;
  };
  readonly redirect: RedirectPlan;
  readonly redirectUri: string;
  /** Whether a loopback client had to leave its preferred port. */
  readonly redirectPortFellBack: boolean;
  readonly authorizationRequest: URL;
  /** The authorization response as the client received it. */
  readonly callback: URL;
  readonly authentication: ClientAuthentication;
  readonly tokenRequest: URLSearchParams;
  readonly token: Readonly<Record<string, unknown>>;
  readonly tools: NotesToolCalls;
}

export interface DriveOptions {
  /** The MCP server URL, as the user enters it. */
  readonly resource: string;
  readonly person: Person;
}

async function readJson(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { body: text };
  }
}

async function discover(client: ShippingClient, resource: string): Promise<Discovery> {
  const first = await fetch(resource, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: client.name, version: '1' },
      },
    }),
  });
  await first.arrayBuffer();
  const header = first.headers.get('www-authenticate');
  const challenge: Challenge | undefined = header
    ? parseWwwAuthenticate(header).find(({ scheme }) => scheme === 'bearer')
    : undefined;
  if (first.status !== 401 || !challenge) {
    throw new ShippingClientError(client.name, 'the first request', first.status, {
      'www-authenticate': header,
    });
  }
  const [wellKnownMetadata] = protectedResourceMetadataUrls(resource);
  const prm = await fetch(challenge.params['resource_metadata'] ?? String(wellKnownMetadata));
  const resourceMetadata = await readJson(prm);
  if (prm.status !== 200)
    throw new ShippingClientError(client.name, 'resource metadata', prm.status, resourceMetadata);
  const issuer = (resourceMetadata['authorization_servers'] as string[] | undefined)?.[0];
  if (!issuer) throw new ShippingClientError(client.name, 'resource metadata', prm.status, resourceMetadata);
  const [serverMetadataUrl] = authorizationServerMetadataUrls(issuer, { openIdConnect: false });
  const asm = await fetch(String(serverMetadataUrl));
  const serverMetadata = await readJson(asm);
  if (asm.status !== 200 || serverMetadata['issuer'] !== issuer) {
    throw new ShippingClientError(client.name, 'authorization server metadata', asm.status, serverMetadata);
  }
  return { resource, challenge, resourceMetadata, issuer, serverMetadata };
}

async function register(
  client: ShippingClient,
  discovery: Discovery,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const endpoint = discovery.serverMetadata['registration_endpoint'];
  if (typeof endpoint !== 'string') {
    throw new ShippingClientError(client.name, 'registration (no registration_endpoint)', undefined, body);
  }
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await readJson(response);
  if (response.status !== 201 || typeof answer['client_id'] !== 'string') {
    throw new ShippingClientError(client.name, 'registration', response.status, answer);
  }
  return answer;
}

async function authenticate(
  client: ShippingClient,
  method: ClientAuthentication,
  form: URLSearchParams,
  credentials: { clientId: string; clientSecret?: string; tokenEndpoint: string },
): Promise<void> {
  if (method === 'private_key_jwt') {
    if (!client.clientAssertion) throw new TypeError(`${client.name} has no signing key`);
    form.append('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    form.append(
      'client_assertion',
      await client.clientAssertion(credentials.clientId, credentials.tokenEndpoint),
    );
    return;
  }
  form.append('client_id', credentials.clientId);
  if (method === 'client_secret_post') {
    if (!credentials.clientSecret)
      throw new ShippingClientError(client.name, 'registration (no secret)', 201, {});
    form.append('client_secret', credentials.clientSecret);
  }
}

/** Runs `client` against the MCP server at `options.resource` to a tool call. */
export async function driveShippingClient(
  client: ShippingClient,
  options: DriveOptions,
): Promise<ShippingClientRun> {
  const discovery = await discover(client, options.resource);
  const choice = client.register(discovery);
  const redirect = client.redirect(discovery, choice);
  const listener = redirect.kind === 'loopback' ? await startCallbackServer(redirect.port) : undefined;
  try {
    const redirectUri =
      redirect.kind === 'loopback'
        ? `http://${redirect.host}:${listener?.port}${redirect.path}`
        : redirect.uri;
    let clientId: string;
    let clientSecret: string | undefined;
    let registration: ShippingClientRun['registration'];
    if (choice.kind === 'dynamic') {
      const request = choice.body(redirectUri);
      const response = await register(client, discovery, request);
      clientId = response['client_id'] as string;
      clientSecret = typeof response['client_secret'] === 'string' ? response['client_secret'] : undefined;
      registration = { request, response };
    } else {
      clientId = choice.clientId;
    }

    const codeVerifier = generateCodeVerifier();
    const state = randomBytes(16).toString('base64url');
    const authorizationRequest = new URL(discovery.serverMetadata['authorization_endpoint'] as string);
    for (const [name, value] of client.authorizationParameters(discovery, {
      clientId,
      redirectUri,
      codeChallenge: codeChallengeS256(codeVerifier),
      state,
    })) {
      authorizationRequest.searchParams.append(name, value);
    }

    const sentTo = await options.person(authorizationRequest.href, redirectUri);
    if (sentTo.href.split('?')[0] !== redirectUri) {
      throw new ShippingClientError(client.name, 'the redirect', undefined, sentTo.href);
    }
    let callback = sentTo;
    if (listener) {
      const delivered = await fetch(sentTo);
      await delivered.arrayBuffer();
      const received = listener.received.at(-1);
      if (delivered.status !== 200 || received === undefined) {
        throw new ShippingClientError(client.name, 'the loopback callback', delivered.status, sentTo.href);
      }
      callback = new URL(received, redirectUri);
    }
    const code = callback.searchParams.get('code');
    if (callback.searchParams.get('state') !== state || code === null) {
      throw new ShippingClientError(
        client.name,
        'authorization',
        undefined,
        Object.fromEntries(callback.searchParams),
      );
    }
    const iss = callback.searchParams.get('iss');
    if (iss !== null && iss !== discovery.issuer) {
      throw new ShippingClientError(client.name, 'authorization (iss)', undefined, { iss });
    }

    const tokenEndpoint = discovery.serverMetadata['token_endpoint'] as string;
    const authentication = client.authentication(discovery, choice);
    const tokenRequest = new URLSearchParams(
      client.tokenParameters(discovery, { clientId, redirectUri, code, codeVerifier }),
    );
    await authenticate(client, authentication, tokenRequest, {
      clientId,
      tokenEndpoint,
      ...(clientSecret ? { clientSecret } : {}),
    });
    const tokenResponse = await fetch(tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: tokenRequest.toString(),
    });
    const token = await readJson(tokenResponse);
    if (tokenResponse.status !== 200 || typeof token['access_token'] !== 'string') {
      throw new ShippingClientError(client.name, 'token request', tokenResponse.status, token);
    }

    const scopes = typeof token['scope'] === 'string' ? token['scope'].split(' ') : [];
    const tools = await callNotesTools(
      options.resource,
      token['access_token'],
      scopes,
      `written by ${client.name}`,
    );
    return {
      discovery,
      choice,
      clientId,
      ...(registration ? { registration } : {}),
      redirect,
      redirectUri,
      redirectPortFellBack: listener?.fellBack ?? false,
      authorizationRequest,
      callback,
      authentication,
      tokenRequest,
      token,
      tools,
    };
  } finally {
    await listener?.close();
  }
}
