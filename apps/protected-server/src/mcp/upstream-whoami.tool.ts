/**
 * `upstream_whoami`: who the user is at a provider (the one they signed in with, or another connection such as
 * GitHub), as that provider's own API answers to the user's token there. A demonstration of calling an upstream API
 * as the user.
 *
 * Rules kept here:
 * - MCP "Token Passthrough": the client's token never leaves for the provider; the resource server exchanges it at
 *   the authorization server (RFC 8693, `upstreamToken`) for the user's token at the provider, which Portcullis's
 *   proxy keeps in its vault, and presents that one.
 * - MCP URL-mode elicitation (2025-11-25; the input-required round trip of 2026-07-28): when the user has no live
 *   connection and the authorization server says where to connect, a client that declared URL elicitation
 *   (`capabilities.elicitation.url`) is asked to send the user there, and the call is answered when the client
 *   comes back (on 2025-era sessions the SDK sends the `elicitation/create` request itself); any other client, and
 *   one that comes back before the user has connected, gets a tool error saying where to go.
 * - The provider's answer is bounded (64 KiB) and only its top-level strings, numbers and booleans are passed on.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 */
import {
  inputRequired,
  type CallToolResult,
  type InputRequiredResult,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { Logger } from '@nestjs/common';
import {
  ConnectionRequiredError,
  UpstreamTokenError,
  type UpstreamTokenExchange,
} from '@portcullis/resource-server';

/** The connection of the provider people sign in with at the proxy. */
export const SIGN_IN_CONNECTION = 'upstream';
const MAX_ANSWER_BYTES = 64 * 1024;
const TIMEOUT_MS = 10_000;

/** What the tool needs: the exchange, and the provider's API naming the token's user. */
export interface UpstreamWhoamiOptions {
  readonly exchange: UpstreamTokenExchange;
  /** `UPSTREAM_USER_API_URL`: GitHub's `https://api.github.com/user`, an OpenID provider's UserInfo endpoint. */
  readonly userApiUrl: string;
  /**
   * `UPSTREAM_CONNECTION`: the connection at the authorization server (the RFC 8693 `audience`) whose token the API
   * takes: `upstream` for the provider people sign in with, or a name of the proxy's `CONNECTIONS`.
   */
  readonly connection: string;
}

const logger = new Logger('UpstreamWhoami');

const text = (value: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: value }],
  ...(isError ? { isError: true } : {}),
});

/** Registers `upstream_whoami` on `server`, under the name the scope table gives it. */
export function registerUpstreamWhoami(
  server: McpServer,
  name: 'upstream_whoami',
  options: UpstreamWhoamiOptions,
) {
  const host = new URL(options.userApiUrl).host;
  server.registerTool(
    name,
    {
      title: 'Who am I upstream',
      description: `Asks ${host} who you are, with your own token there (never the one you gave this server).`,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (context: ServerContext) => {
      const auth = context.http?.authInfo;
      if (!auth) throw new Error('upstream_whoami reached without auth info');
      let token;
      try {
        token = await options.exchange.upstreamToken(auth, options.connection);
      } catch (error) {
        if (error instanceof ConnectionRequiredError) {
          const cameBack = context.mcpReq.inputResponses?.[CONNECT] !== undefined;
          const canAsk = !cameBack && server.server.getClientCapabilities()?.elicitation?.url !== undefined;
          return connectFirst(error, canAsk, host);
        }
        if (error instanceof UpstreamTokenError) {
          logger.warn({ err: error }, 'token exchange failed');
          return text(
            `Your account at ${host} cannot be reached through the authorization server now; try again later.`,
            true,
          );
        }
        throw error;
      }
      let response: Response;
      try {
        response = await fetch(options.userApiUrl, {
          redirect: 'manual',
          signal: AbortSignal.timeout(TIMEOUT_MS),
          headers: {
            authorization: `${/^bearer$/i.test(token.tokenType) ? 'Bearer' : token.tokenType} ${token.accessToken}`,
            accept: 'application/json',
            // GitHub's REST API refuses a request without one.
            'user-agent': 'portcullis-protected-server',
          },
        });
      } catch (error) {
        logger.warn({ err: error }, 'the upstream API could not be reached');
        return text(`${host} could not be reached; try again later.`, true);
      }
      if (response.status === 401) {
        // Revoked at the provider since it was exchanged: the next call exchanges again.
        options.exchange.forget(auth, options.connection);
        await response.body?.cancel();
        return text(`${host} no longer accepts your token; try again.`, true);
      }
      if (response.status !== 200) {
        await response.body?.cancel();
        return text(`${host} answered ${response.status}.`, true);
      }
      const body = await boundedJson(response);
      if (body === undefined) return text(`${host} did not answer with a JSON object.`, true);
      return text(JSON.stringify(scalarsOf(body)));
    },
  );
}

/** The key of the URL elicitation among the call's input requests. */
const CONNECT = 'connect';

/**
 * The answer when the user has no live connection: a URL elicitation where the client can take one (and has not
 * just come back from it), else a tool error naming the URL.
 */
function connectFirst(
  error: ConnectionRequiredError,
  canAsk: boolean,
  host: string,
): CallToolResult | InputRequiredResult {
  const message = `Connect your account at ${host} so that this server can call it as you.`;
  if (error.interactionUri && canAsk) {
    return inputRequired({
      inputRequests: { [CONNECT]: inputRequired.elicitUrl({ url: error.interactionUri, message }) },
    });
  }
  return text(
    error.interactionUri ? `${message} Open ${error.interactionUri}, then try again.` : message,
    true,
  );
}

async function boundedJson(response: Response): Promise<Record<string, unknown> | undefined> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > MAX_ANSWER_BYTES) return undefined;
  const raw = await response.text();
  if (raw.length > MAX_ANSWER_BYTES) return undefined;
  try {
    const value = JSON.parse(raw) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function scalarsOf(body: Record<string, unknown>): Record<string, string | number | boolean> {
  return Object.fromEntries(
    Object.entries(body).filter((entry): entry is [string, string | number | boolean] =>
      ['string', 'number', 'boolean'].includes(typeof entry[1]),
    ),
  );
}
