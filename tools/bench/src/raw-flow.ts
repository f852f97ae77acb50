/**
 * The timed steps of the authorization server scenarios, as raw requests through a {@link PoolClient}: a person's
 * re-authorization (their session cookie replayed as a header; `/authorize` read by its `Location` only, RFC 6749
 * 4.1.2; the code redeemed by a form POST, RFC 6749 4.1.3 with PKCE, RFC 7636 4.5) and a refresh with rotation
 * (RFC 6749 6). The session and consent are made beforehand, untimed, by the test harness's user-agent.
 */
import { randomBytes } from 'node:crypto';
import { codeChallengeS256, generateCodeVerifier } from '@portcullis/protocol';
import { own } from './compare.js';
import type { Step } from './load.js';
import { okJson, type PoolClient } from './pool-client.js';

/** An authorization server as the raw flow talks to it. */
export interface FlowServer {
  readonly pool: PoolClient;
  /** The authorization endpoint's path (`/authorize` ours, `/auth` oidc-provider's). */
  readonly authorizePath: string;
  readonly tokenPath: string;
  readonly name: string;
}

/** The client of a raw flow. */
export interface FlowClient {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scope: string;
  /** RFC 8707 `resource`, when the server wants one. */
  readonly resource?: string;
  /** The client's authentication at the token endpoint (`client_secret_basic`); a public client sends `client_id`. */
  readonly authorization?: Readonly<Record<string, string>>;
}

function clientParams(client: FlowClient): Record<string, string | undefined> {
  return client.authorization ? {} : { client_id: client.clientId };
}

/**
 * One re-authorization per step: `/authorize` with the worker's session cookie must redirect to the client with a
 * code at once, which `/token` must redeem. `cookies[worker]` is that worker's `Cookie` header.
 */
export function reauthorizationStep(
  server: FlowServer,
  client: FlowClient,
  cookies: readonly string[],
): Step {
  return async (worker) => {
    const verifier = generateCodeVerifier();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      code_challenge: codeChallengeS256(verifier),
      code_challenge_method: 'S256',
      ...(client.resource ? { resource: client.resource } : {}),
      scope: client.scope,
      state: randomBytes(12).toString('base64url'),
    });
    const answer = await server.pool.location(`${server.authorizePath}?${query.toString()}`, {
      cookie: own(cookies, worker),
    });
    const { location } = answer;
    if (answer.status < 300 || answer.status > 399 || !location?.startsWith(client.redirectUri)) {
      throw new Error(
        `${server.name} ${server.authorizePath} answered ${answer.status} ${location ?? '(no Location)'}, not a redirect to the client`,
      );
    }
    const code = new URL(location).searchParams.get('code');
    if (!code) throw new Error(`${server.name} redirected to the client without a code: ${location}`);
    const token = await server.pool.postForm(
      server.tokenPath,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: client.redirectUri,
        code_verifier: verifier,
        ...clientParams(client),
      },
      { ...client.authorization },
    );
    if (token.status !== 200)
      throw new Error(
        `${server.name}'s token endpoint answered ${token.status}: ${token.text.slice(0, 300)}`,
      );
  };
}

/** One refresh per step: the worker's family's token is presented and replaced by the rotated one. */
export function refreshStep(server: FlowServer, client: FlowClient, families: string[]): Step {
  return async (worker) => {
    const body = okJson(
      await server.pool.postForm(
        server.tokenPath,
        { grant_type: 'refresh_token', refresh_token: own(families, worker), ...clientParams(client) },
        { ...client.authorization },
      ),
      `${server.name}'s refresh`,
    );
    const next = body['refresh_token'];
    if (typeof next !== 'string') throw new Error(`${server.name} rotated to no refresh token`);
    families[worker] = next;
  };
}
