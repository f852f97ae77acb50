import type { FetchLike } from '../http/http.js';
import type { CheckStatus, DoctorCheck } from './doctor-check.js';

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
  /**
   * Set by {@link diagnose} when a token was given but the server is reached over plain http on a host that is not
   * loopback: no token is sent, and the `token` check fails with the reason.
   */
  readonly tokenWithheld?: boolean;
  /**
   * The web origin of a browser-based client the server means to serve, for the CORS check; default
   * `http://localhost:6274`, the MCP Inspector's.
   */
  readonly browserOrigin?: string;
  /** Per request; default 10 s. */
  readonly timeoutMs?: number;
}

export interface DoctorReport {
  /** The MCP server URL checked. */
  readonly server: string;
  readonly checks: readonly DoctorCheck[];
  readonly counts: Readonly<Record<CheckStatus, number>>;
  /** No check failed. */
  readonly ok: boolean;
}
