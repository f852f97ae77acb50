import { signInUnavailablePage, type Decision } from '@portcullis/authorization';

/** Why an upstream operation failed, in the words the error page uses. */
export type UpstreamFailure =
  /** No answer within `UPSTREAM_TIMEOUT_MS`. */
  | 'timeout'
  /** No connection, or an answer that is not HTTP. */
  | 'unreachable'
  /** The upstream answered, but with an error or with something that failed a check (iss, nonce, signature). */
  | 'rejected'
  /** The user said no at the upstream (`access_denied`). */
  | 'denied';

/**
 * An upstream operation failed. The cause is logged; the user sees only {@link UpstreamError.failure}, because an
 * upstream's error text is not ours to show (RFC 9207 2.4: not even when `iss` is wrong).
 */
export class UpstreamError extends Error {
  constructor(
    readonly failure: UpstreamFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'UpstreamError';
  }

  /** Classifies anything openid-client, fetch or a deadline threw. */
  static from(error: unknown, operation: string): UpstreamError {
    if (error instanceof UpstreamError) return error;
    const chain = causes(error);
    if (chain.some((cause) => cause.name === 'TimeoutError' || cause.name === 'AbortError')) {
      return new UpstreamError('timeout', `${operation}: the upstream did not answer in time`, {
        cause: error,
      });
    }
    if (
      chain.some((cause) => cause.name === 'AuthorizationResponseError' && hasCode(cause, 'access_denied'))
    ) {
      return new UpstreamError('denied', `${operation}: the user denied the request upstream`, {
        cause: error,
      });
    }
    if (chain.some(isConnectionFailure)) {
      return new UpstreamError('unreachable', `${operation}: the upstream could not be reached`, {
        cause: error,
      });
    }
    return new UpstreamError('rejected', `${operation}: ${chain[0]?.message ?? String(error)}`, {
      cause: error,
    });
  }
}

/** The error and its causes; not by `instanceof Error`, since fetch's errors may come from another realm. */
function causes(error: unknown): Error[] {
  const chain: Error[] = [];
  let current: unknown = error;
  while (typeof current === 'object' && current !== null && 'message' in current && chain.length < 8) {
    chain.push(current as Error);
    current = (current as Error).cause;
  }
  return chain;
}

/** Codes of a connection that never carried an answer (Node's net errors and undici's socket errors). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]);

function isConnectionFailure(error: Error): boolean {
  const code = (error as Error & { code?: unknown }).code;
  // Compared by name, not instanceof: fetch's TypeError may come from another realm.
  return (
    (typeof code === 'string' && CONNECTION_CODES.has(code)) ||
    (error.name === 'TypeError' && /fetch failed/i.test(error.message))
  );
}

/**
 * Whether the upstream's token endpoint refused a grant as no longer valid (RFC 6749 5.2 `invalid_grant`: a refresh
 * token expired, revoked, or issued to someone else), as opposed to being slow, down or broken: the person must
 * sign in or connect again, and trying again changes nothing.
 */
export function isGrantRefused(error: unknown): boolean {
  return causes(error).some((cause) => hasCode(cause, 'invalid_grant'));
}

function hasCode(error: Error, code: string): boolean {
  return (error as Error & { error?: unknown }).error === code;
}

const FAILURE_STATUS: Readonly<Record<UpstreamFailure, number>> = {
  timeout: 504,
  unreachable: 502,
  rejected: 502,
  denied: 403,
};

/**
 * The page for an upstream that is slow, down or misbehaving: what happened in plain words, and that nothing was
 * shared; never the upstream's own error text (RFC 9207 2.4).
 */
export function upstreamFailurePage(
  failure: UpstreamFailure,
  upstream: { readonly issuer: string; readonly timeoutMs: number },
): Extract<Decision, { kind: 'page' }> {
  const what: Record<UpstreamFailure, string> = {
    timeout: `did not answer within ${formatSeconds(upstream.timeoutMs)}`,
    unreachable: 'could not be reached',
    rejected: 'gave an answer that could not be verified',
    denied: 'did not sign you in',
  };
  return {
    kind: 'page',
    status: FAILURE_STATUS[failure],
    html: signInUnavailablePage({
      host: new URL(upstream.issuer).host,
      what: what[failure],
      id: `upstream-${failure}`,
    }),
  };
}

/**
 * Whether an upstream failure is the authorization response itself not verifying as the upstream's (a wrong or
 * missing `iss`, RFC 9207 2.4; a `state` that is not ours): the browser brought a response the proxy cannot accept,
 * which is a sign-in failure (4xx), not an upstream outage.
 */
export function isUnverifiedAuthorizationResponse(error: unknown): boolean {
  return causes(error).some(
    (cause) =>
      (cause as Error & { code?: unknown }).code === 'OAUTH_INVALID_RESPONSE' &&
      /response parameter|"iss"|"state"/.test(cause.message),
  );
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} second${seconds === 1 ? '' : 's'}`;
}
