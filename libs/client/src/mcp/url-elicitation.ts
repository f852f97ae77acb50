/**
 * Tool calls that a server answers with a URL-mode elicitation: the user must do something out of band first (connect
 * an account at the authorization server), then the call is made again.
 *
 * Rules kept here (MCP 2025-11-25 "Elicitation", URL mode):
 * - A client declares `elicitation.url` only when it can handle it ({@link URL_ELICITATION_CAPABILITY}).
 * - The URL is never opened without the user's consent, and the user is shown where it leads: the handler gets the
 *   message, the URL and its host, and decides. Only https URLs (http on a loopback host, for development) without
 *   userinfo reach it; anything else is refused here.
 * - Three ways a server asks, one handler for all: an `elicitation/create` request in URL mode (2025-era sessions),
 *   an input-required result embedding one (2026-07-28; the SDK's client dispatches it to the same registered
 *   handler and retries), and `URLElicitationRequiredError` (-32042, 2025-11-25) thrown from a tool, after which the
 *   call is retried a bounded number of times. An `accept` answer means the user consented and says they are done.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 */
import { isLoopbackHost } from '@portcullis/protocol';

/** MCP's `URLElicitationRequiredError` code. */
export const URL_ELICITATION_REQUIRED = -32042;

/** A tool call as an MCP client makes it (the official SDK's `Client.callTool`). */
export interface ToolCaller<Params extends { readonly name: string }, Result> {
  callTool(params: Params): Promise<Result>;
}

/** The capability a client declares when it handles URL-mode elicitation. */
export const URL_ELICITATION_CAPABILITY = Object.freeze({ elicitation: { url: {} } });

/** One URL the server asks the user to visit. */
export interface UrlElicitation {
  readonly elicitationId: string;
  readonly message: string;
  readonly url: URL;
}

/**
 * Shows `elicitation` to the user, opens it only with their consent, and resolves once they say they are done
 * (`completed`, and the call is retried) or do not want to (`declined`).
 */
export type UrlElicitationHandler = (elicitation: UrlElicitation) => Promise<'completed' | 'declined'>;

/** The user declined a URL elicitation, or the server kept asking after the user completed them. */
export class UrlElicitationNotCompletedError extends Error {
  constructor(
    readonly elicitations: readonly UrlElicitation[],
    message: string,
  ) {
    super(message);
    this.name = 'UrlElicitationNotCompletedError';
  }
}

/** What {@link handleUrlElicitations} needs of an MCP client: the official SDK's `Client.setRequestHandler`. */
export interface ElicitationReceiver {
  setRequestHandler(
    method: 'elicitation/create',
    handler: (request: {
      readonly params: Record<string, unknown>;
    }) => Promise<{ action: 'accept' | 'decline' }>,
  ): void;
}

/**
 * Answers the server's URL-mode `elicitation/create` requests (a 2025-era session's, or those a 2026-07-28
 * input-required result embeds) with `handler`: `accept` once the user has completed the visit, `decline` when they
 * do not want to, or when the URL is not one to show (not https, or with userinfo). Form-mode requests are declined:
 * this client shows no forms.
 */
export function handleUrlElicitations(client: ElicitationReceiver, handler: UrlElicitationHandler): void {
  client.setRequestHandler('elicitation/create', async ({ params }) => {
    const { mode, url, message, elicitationId } = params;
    if (mode !== 'url' || typeof url !== 'string') return { action: 'decline' };
    let elicitation: UrlElicitation;
    try {
      elicitation = checkedElicitation({
        elicitationId: typeof elicitationId === 'string' ? elicitationId : '',
        message: typeof message === 'string' ? message : '',
        url,
      });
    } catch {
      return { action: 'decline' };
    }
    return { action: (await handler(elicitation)) === 'completed' ? 'accept' : 'decline' };
  });
}

/**
 * Calls a tool; when the server answers that the user must visit URLs first, hands each to `handler` and, once all
 * are completed, calls again (at most `maxRounds` calls in all).
 *
 * @throws UrlElicitationNotCompletedError when the user declines, or the server still asks after `maxRounds` calls
 * @throws Error when the server names a URL that is not https (or http on loopback), or one with userinfo
 */
export async function callToolWithUrlElicitation<Params extends { readonly name: string }, Result>(
  client: ToolCaller<Params, Result>,
  params: Params,
  handler: UrlElicitationHandler,
  options: { readonly maxRounds?: number } = {},
): Promise<Result> {
  const maxRounds = options.maxRounds ?? 3;
  let asked: UrlElicitation[] = [];
  for (let round = 1; ; round += 1) {
    try {
      return await client.callTool(params);
    } catch (error) {
      const elicitations = urlElicitationsOf(error);
      if (elicitations === undefined) throw error;
      asked = elicitations.map(checkedElicitation);
      if (round >= maxRounds) {
        throw new UrlElicitationNotCompletedError(
          asked,
          `${params.name} still needs the user after ${round} calls`,
        );
      }
    }
    for (const elicitation of asked) {
      if ((await handler(elicitation)) !== 'completed') {
        throw new UrlElicitationNotCompletedError(asked, `the user declined ${elicitation.url.host}`);
      }
    }
  }
}

/**
 * The elicitations of a `URLElicitationRequiredError` (the SDK's error class, or any error with that code and
 * `data.elicitations`), read by shape so that this library does not depend on one SDK build.
 */
function urlElicitationsOf(
  error: unknown,
): { elicitationId: string; message: string; url: string }[] | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, data } = error as { code?: unknown; data?: { elicitations?: unknown } };
  if (code !== URL_ELICITATION_REQUIRED || !Array.isArray(data?.elicitations)) return undefined;
  return data.elicitations.flatMap((each: unknown) => {
    const { mode, elicitationId, message, url } = (each ?? {}) as Record<string, unknown>;
    return mode === 'url' && typeof url === 'string'
      ? [
          {
            elicitationId: String(elicitationId ?? ''),
            message: typeof message === 'string' ? message : '',
            url,
          },
        ]
      : [];
  });
}

function checkedElicitation(params: { elicitationId: string; message: string; url: string }): UrlElicitation {
  let url: URL;
  try {
    url = new URL(params.url);
  } catch {
    throw new Error(`the server asked to visit ${JSON.stringify(params.url)}, which is not a URL`);
  }
  const safe = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  if (!safe || url.username || url.password) {
    throw new Error(`the server asked to visit ${url.origin}, which is not https: refused`);
  }
  return { elicitationId: params.elicitationId, message: params.message, url };
}
