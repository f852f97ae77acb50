// The suite's load: 20 clients at once against the HA stack's public face (HAProxy), each recording every request
// it made, when, and how it was answered. 8 refresh their token family in a loop, 6 write notes with MCP tool calls,
// 4 sign in through the real pages (authorization, code, token; each keeps its browser, so only its first sign-in
// types the password), and 2 call tools with DPoP-bound tokens and a fresh proof each.
import { createHash, randomUUID } from 'node:crypto';
import {
  authorizationRequest,
  authorize,
  FlowStoppedError,
  HeadlessUserAgent,
  redeem,
  refresh,
  tokenRequest,
  type TestClient,
  type TokenAnswer,
  type UserAgentResponse,
} from '@portcullis/testing';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { HA, sleep } from './ha-stack.js';

export type Kind = 'refresh' | 'tool' | 'sign-in' | 'dpop-tool';

/** One request (a sign-in: one whole flow), how it ended, and when (ms since the epoch). */
export interface Outcome {
  readonly kind: Kind;
  readonly startedAt: number;
  readonly endedAt: number;
  /** The HTTP status; `network` when nothing answered. */
  readonly status: number | 'network';
  /** An MCP tool result that is an error. */
  readonly toolError?: boolean;
  /** A 503 (or a tool error) that says when to retry. */
  readonly retryLater: boolean;
  /**
   * The OAuth error code of a refused token request; for a refused MCP request, the error and its description from
   * the bearer challenge (`invalid_token: The access token is signed with a key this resource does not know.`).
   */
  readonly error?: string;
  /** Which client made it, where it is not the kind's only one (`writer 5 via http://localhost:4900`). */
  readonly by?: string;
}

export function succeeded(outcome: Outcome): boolean {
  return outcome.status === 200 && !outcome.toolError;
}

/** The user every client signs in as, and the public client they use. */
export interface Principal {
  readonly client: TestClient;
  readonly user: { username: string; password: string };
}

/** One token family: its current refresh token and access token, and the DPoP key it is bound to, if any. */
export interface Family {
  refreshToken: string;
  accessToken: string;
  readonly dpop?: DpopKey;
  /** The authorization server that issued it, where it is refreshed; the load's by default. */
  readonly issuer?: string;
  /** The family ended (a refresh refused with invalid_grant): a family that dies. */
  died?: string;
}

export interface DpopKey {
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
}

export async function dpopKey(): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const { kty, crv, x, y } = await exportJWK(publicKey);
  return { privateKey, jwk: { kty, crv, x, y } as JWK };
}

/** A DPoP proof (RFC 9449 4.2) for one request; with `accessToken`, bound to it by `ath`. */
export async function dpopProof(
  key: DpopKey,
  method: string,
  url: string,
  accessToken?: string,
): Promise<string> {
  return new SignJWT({
    htm: method,
    htu: url,
    jti: randomUUID(),
    ...(accessToken ? { ath: createHash('sha256').update(accessToken).digest('base64url') } : {}),
  })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.jwk })
    .setIssuedAt()
    .sign(key.privateKey);
}

const SCOPE = 'notes:read notes:write';

/** Where the load goes: the HA stack's public face, unless {@link aimAt} names another stack's. */
const target: { issuer: string; resource: string } = { issuer: HA.issuer, resource: HA.resource };

/** Sends the load (sign-ins, refreshes, tool calls) to another stack's authorization server and MCP endpoint. */
export function aimAt(stack: { readonly issuer: string; readonly resource: string }): void {
  target.issuer = stack.issuer;
  target.resource = stack.resource;
}

/** One authorization through the real pages, its code redeemed (with a DPoP proof when `dpop` is given). */
export async function signIn(
  principal: Principal,
  options: { ua?: HeadlessUserAgent; dpop?: DpopKey } = {},
): Promise<TokenAnswer> {
  const request = authorizationRequest(target.issuer, principal.client, SCOPE, target.resource);
  const callback = await authorize(
    options.ua ?? new HeadlessUserAgent(),
    request,
    principal.user,
    principal.client,
  );
  if (!options.dpop) return redeem(target.issuer, principal.client, callback, request);
  return tokenRequest(
    target.issuer,
    {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') ?? undefined,
      redirect_uri: principal.client.redirectUri,
      client_id: principal.client.clientId,
      code_verifier: request.verifier,
    },
    { dpop: await dpopProof(options.dpop, 'POST', `${target.issuer}/token`) },
  );
}

/** A redirect that lands on the client's redirect URI ends a step: its callback URL, never requested. */
async function settle(
  ua: HeadlessUserAgent,
  response: UserAgentResponse,
  redirectUri: string,
): Promise<{ response: UserAgentResponse; callback?: URL }> {
  let current = response;
  for (let hops = 0; hops < 10; hops++) {
    if (!current.location || ![301, 302, 303, 307, 308].includes(current.status))
      return { response: current };
    if (current.location.startsWith(redirectUri))
      return { response: current, callback: new URL(current.location) };
    current = await ua.follow(current);
  }
  throw new Error('too many redirects');
}

/** How often, at most, a person sends a page again that answered 503 with `Retry-After`. */
const RETRIES_AFTER_503 = 3;

/** `Retry-After` of a 503 in milliseconds (at most 5 s), or undefined for any other answer. */
function retryAfterMs(response: { status: number; headers: Headers }): number | undefined {
  const header = response.headers.get('retry-after');
  // HAProxy's own 503 (no server left) says nothing of when to come back: not retried, it fails the sign-in.
  if (response.status !== 503 || header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 5) * 1000 : undefined;
}

/**
 * `send`'s answer, sent again after each 503 with `Retry-After` while `retried` (shared by the steps of one flow) is
 * below {@link RETRIES_AFTER_503}.
 */
async function sentAgainAfter503<Answer extends { status: number; headers: Headers }>(
  send: () => Promise<Answer>,
  retried: { count: number },
): Promise<Answer> {
  let answer = await send();
  for (let wait = retryAfterMs(answer); wait !== undefined && retried.count < RETRIES_AFTER_503;) {
    retried.count += 1;
    await sleep(wait);
    answer = await send();
    wait = retryAfterMs(answer);
  }
  return answer;
}

/** A sign-in finished across a fault: its token answer, and how many times a page asked to be sent again later. */
export type FinishedSignIn = TokenAnswer & { readonly retriedAfter503: number };

/**
 * The first step of a sign-in (the authorization request, answered with the login page); the rest (login, consent,
 * code redemption) when the returned function is called: a flow in progress across a fault. Any page or the token
 * endpoint answering 503 with `Retry-After` (an instance busy with its peer's load, nothing of the flow used up) is
 * sent again after that delay, as a person presses reload, up to {@link RETRIES_AFTER_503} times.
 */
export async function beginSignIn(principal: Principal): Promise<() => Promise<FinishedSignIn>> {
  const ua = new HeadlessUserAgent();
  const request = authorizationRequest(target.issuer, principal.client, SCOPE, target.resource);
  const retried = { count: 0 };
  const first = await sentAgainAfter503(() => ua.get(request.url), retried);
  let step = await settle(ua, first, principal.client.redirectUri);
  if (step.response.status !== 200 || !('username' in step.response.form().fields)) {
    throw new FlowStoppedError(step.response);
  }
  return async () => {
    for (let pages = 0; !step.callback && pages < 4; pages++) {
      if (step.response.status !== 200) throw new FlowStoppedError(step.response);
      const form = step.response.form();
      const send = () =>
        'username' in form.fields
          ? ua.submit(form, { username: principal.user.username, password: principal.user.password })
          : ua.submit(form, {}, { button: { name: 'decision', value: 'approve' } });
      step = await settle(ua, await sentAgainAfter503(send, retried), principal.client.redirectUri);
    }
    if (!step.callback) throw new FlowStoppedError(step.response);
    const callback = step.callback;
    const answer = await sentAgainAfter503(
      () => redeem(target.issuer, principal.client, callback, request),
      retried,
    );
    return { ...answer, retriedAfter503: retried.count };
  };
}

/**
 * Sign-ins of {@link newFamily} begun again after a page or the token endpoint answered 503 with `Retry-After` (an
 * instance asking to be called later, nothing of the flow used up), as a person presses reload: the suites print it.
 */
export const signInsBegunAgain = { count: 0 };

/**
 * A new family for `principal`, through the real pages (one browser for all: the login is asked once). A sign-in
 * answered 503 with `Retry-After` is begun again after that delay, up to {@link RETRIES_AFTER_503} times (counted in
 * {@link signInsBegunAgain}); any other refusal, HAProxy's own 503 (no Retry-After) included, fails.
 */
export async function newFamily(
  principal: Principal,
  ua: HeadlessUserAgent,
  dpop?: DpopKey,
): Promise<Family> {
  let answer: TokenAnswer | undefined;
  for (let attempt = 0; ; attempt++) {
    let wait: number | undefined;
    try {
      answer = await signIn(principal, { ua, ...(dpop ? { dpop } : {}) });
      wait = retryAfterMs(answer);
    } catch (error) {
      if (!(error instanceof FlowStoppedError)) throw error;
      wait = retryAfterMs(error.response);
      if (wait === undefined || attempt >= RETRIES_AFTER_503) throw error;
    }
    if (wait === undefined || attempt >= RETRIES_AFTER_503) break;
    signInsBegunAgain.count += 1;
    await sleep(wait);
  }
  if (answer === undefined || answer.status !== 200)
    throw new Error(`sign-in answered ${answer?.status}: ${JSON.stringify(answer?.body)}`);
  return {
    refreshToken: answer.body['refresh_token'] as string,
    accessToken: answer.body['access_token'] as string,
    ...(dpop ? { dpop } : {}),
  };
}

/** Refreshes `family` once; on 200 the family moves on to the new tokens. */
export async function refreshFamily(principal: Principal, family: Family): Promise<TokenAnswer> {
  const issuer = family.issuer ?? target.issuer;
  const answer = family.dpop
    ? await tokenRequest(
        issuer,
        {
          grant_type: 'refresh_token',
          refresh_token: family.refreshToken,
          client_id: principal.client.clientId,
        },
        { dpop: await dpopProof(family.dpop, 'POST', `${issuer}/token`) },
      )
    : await refresh(issuer, principal.client, family.refreshToken);
  if (answer.status === 200) {
    family.refreshToken = answer.body['refresh_token'] as string;
    family.accessToken = answer.body['access_token'] as string;
  }
  return answer;
}

export interface ToolAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly result?: { isError?: boolean; content?: { type: string; text?: string }[] };
}

/**
 * An MCP `tools/call` over Streamable HTTP in the 2026-07-28 (stateless) era, with a bearer or DPoP token; to the
 * load's MCP endpoint, or `url` (one instance's).
 */
export async function callTool(
  family: Family,
  name: string,
  args: Record<string, unknown>,
  proof?: string,
  url: string = target.resource,
): Promise<ToolAnswer> {
  const dpop = family.dpop
    ? (proof ?? (await dpopProof(family.dpop, 'POST', url, family.accessToken)))
    : undefined;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `${dpop ? 'DPoP' : 'Bearer'} ${family.accessToken}`,
      ...(dpop ? { dpop } : {}),
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'portcullis-e2e-ha', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (response.status !== 200) return { status: response.status, headers: response.headers };
  const json = (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ? text
        .split('\n')
        .find((line) => line.startsWith('data: '))
        ?.slice('data: '.length)
    : text;
  const message = JSON.parse(json ?? '{}') as { result?: ToolAnswer['result'] };
  return {
    status: response.status,
    headers: response.headers,
    ...(message.result ? { result: message.result } : {}),
  };
}

const RETRY_LATER = /temporarily unavailable; try again in \d+ seconds/;

/** `error: error_description` of a bearer (or DPoP) challenge, as RFC 6750 Section 3 writes them. */
function challengeOf(answer: ToolAnswer): string | undefined {
  const header = answer.headers.get('www-authenticate');
  if (!header) return undefined;
  const param = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(header)?.[1];
  const error = param('error');
  return error === undefined ? header : `${error}: ${param('error_description') ?? ''}`;
}

function toolOutcome(answer: ToolAnswer, by?: string): Omit<Outcome, 'kind' | 'startedAt' | 'endedAt'> {
  const text = answer.result?.content?.map((part) => part.text ?? '').join('') ?? '';
  const challenge = answer.status === 401 || answer.status === 403 ? challengeOf(answer) : undefined;
  return {
    status: answer.status,
    toolError: answer.result?.isError === true,
    retryLater:
      answer.headers.has('retry-after') || (answer.result?.isError === true && RETRY_LATER.test(text)),
    ...(challenge === undefined ? {} : { error: challenge }),
    ...(by === undefined ? {} : { by }),
  };
}

/** A client's name in outcomes: its kind's index and, for a family another issuer made, that issuer. */
function clientName(role: string, index: number, family: Family): string {
  return `${role} ${index}${family.issuer ? ` via ${family.issuer}` : ''}`;
}

/** The clients of one run of load, their families and what they were answered. */
export class Load {
  readonly outcomes: Outcome[] = [];
  /** Notes whose creation a tool call acknowledged. */
  readonly acknowledged: string[] = [];
  readonly #loops: Promise<void>[] = [];
  #running = true;

  constructor(
    readonly principal: Principal,
    readonly refreshers: Family[],
    readonly writers: Family[],
    readonly dpopCallers: Family[],
    readonly signInClients: number,
  ) {}

  start(label: string): this {
    for (const family of this.refreshers) this.#loop(() => this.#refresh(family), 100);
    this.writers.forEach((family, index) =>
      this.#loop(async () => {
        const title = `${label} ${index} ${randomUUID()}`;
        await this.#record('tool', async () => {
          const answer = await callTool(family, 'notes_create', { title });
          if (answer.status === 200 && answer.result && !answer.result.isError) this.acknowledged.push(title);
          return toolOutcome(answer, clientName('writer', index, family));
        });
      }, 100),
    );
    this.dpopCallers.forEach((family, index) => {
      this.#loop(
        () =>
          this.#record('dpop-tool', async () =>
            toolOutcome(await callTool(family, 'notes_list', {}), clientName('dpop caller', index, family)),
          ),
        100,
      );
    });
    for (let i = 0; i < this.signInClients; i++) {
      // Each client keeps its browser, as a person does: the first sign-in types the password (an argon2id check,
      // 64 MiB and a few hundred milliseconds of a core), the next ones go through the authorization and consent
      // pages on that session. A password typed every half second by four clients at once would spend most of a
      // 2-core machine on argon2 alone.
      const ua = new HeadlessUserAgent();
      this.#loop(
        () =>
          this.#record('sign-in', async () => {
            const answer = await signIn(this.principal, { ua });
            return tokenOutcome(answer);
          }),
        500,
      );
    }
    return this;
  }

  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#loops);
  }

  /** Every family still alive (none ended by a refused refresh). */
  get families(): Family[] {
    return [...this.refreshers, ...this.writers, ...this.dpopCallers];
  }

  async #refresh(family: Family): Promise<void> {
    if (family.died) return;
    await this.#record('refresh', async () => {
      const answer = await refreshFamily(this.principal, family);
      if (answer.status === 400 && answer.body['error'] === 'invalid_grant') {
        family.died = String(answer.body['error_description'] ?? 'invalid_grant');
      }
      return tokenOutcome(answer);
    });
  }

  #loop(step: () => Promise<void>, pauseMs: number): void {
    this.#loops.push(
      (async () => {
        while (this.#running) {
          await step();
          await sleep(pauseMs);
        }
      })(),
    );
  }

  async #record(
    kind: Kind,
    work: () => Promise<Omit<Outcome, 'kind' | 'startedAt' | 'endedAt'>>,
  ): Promise<void> {
    const startedAt = Date.now();
    let result: Omit<Outcome, 'kind' | 'startedAt' | 'endedAt'>;
    try {
      result = await work();
    } catch (error) {
      result =
        error instanceof FlowStoppedError
          ? { status: error.status, retryLater: error.retryAfter }
          : { status: 'network', retryLater: false, error: String((error as Error)?.message ?? error) };
    }
    this.outcomes.push({ kind, startedAt, endedAt: Date.now(), ...result });
  }
}

function tokenOutcome(answer: TokenAnswer): Omit<Outcome, 'kind' | 'startedAt' | 'endedAt'> {
  return {
    status: answer.status,
    retryLater: answer.headers.has('retry-after'),
    ...(answer.status !== 200 && typeof answer.body['error'] === 'string'
      ? { error: answer.body['error'] }
      : {}),
  };
}

/** What went wrong in `outcomes`, counted by kind and answer: `{ 'refresh 503 (Retry-After)': 4, ... }`. */
export function errorsByStatus(outcomes: readonly Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) {
    if (succeeded(outcome)) continue;
    const answer =
      outcome.status === 200 && outcome.toolError
        ? `tool error${outcome.retryLater ? ' (retry later)' : ''}`
        : `${outcome.status}${outcome.retryLater ? ' (Retry-After)' : ''}${outcome.error ? ` ${outcome.error}` : ''}`;
    const key = `${outcome.kind} ${answer}${outcome.by ? ` [${outcome.by}]` : ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/**
 * Requests lost: those that got no usable answer and were not told to come back: no answer at all, a 5xx other
 * than a 503 with Retry-After, a tool error that does not say when to retry.
 */
export function lost(outcomes: readonly Outcome[]): Outcome[] {
  return outcomes.filter((outcome) => {
    if (succeeded(outcome)) return false;
    if (outcome.status === 'network') return true;
    if (outcome.status === 503) return !outcome.retryLater;
    if (outcome.status === 200) return !outcome.retryLater;
    return outcome.status >= 500;
  });
}

/** The moment after which every request started succeeded: the end of the last failed one (or `from`). */
export function recoveredAt(outcomes: readonly Outcome[], from: number): number {
  let last = from;
  for (const outcome of outcomes) {
    if (outcome.startedAt >= from && !succeeded(outcome)) last = Math.max(last, outcome.endedAt);
  }
  return last;
}
