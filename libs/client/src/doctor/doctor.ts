/**
 * `portcullis doctor`: black-box checks of an MCP server's authorization, for a team that plugs
 * `libs/resource-server` into its own server or runs someone else's. Only what any client sees: the 401 challenge,
 * the Protected Resource Metadata, each authorization server's metadata, CORS for browser clients, and, with a
 * token, how the server treats it. Nothing is registered, no authorization is started, and no tool is called unless
 * the person names one (`stepUpTool`) that the token must not be allowed.
 *
 * The checks, one rule each with its sections, are listed in order in `checks/index.ts`; this file runs them:
 * - a check of the server runs once, a check of an authorization server once for each one the resource metadata
 *   names (at most five), consecutive such checks as one block per server, so that each server's lines stay
 *   together;
 * - a check that finds nothing to look at reports nothing; one that halts the run (the server did not answer) ends
 *   it; anything a check throws ends the run as one failed `doctor.error` line, never as an exception.
 */
import { DOCTOR_CHECKS } from './checks/index.js';
import type {
  AuthorizationServerCheck,
  CheckResult,
  DiagnosticCheck,
  DoctorCheck,
  Finding,
} from './doctor-check.js';
import { DoctorContext, describeFailure } from './doctor-context.js';
import { isLoopbackHost } from '@portcullis/protocol';
import type { DoctorOptions, DoctorReport } from './doctor-options.js';
import { REFERENCES } from './references.js';

export type { CheckReference, CheckStatus, DoctorCheck } from './doctor-check.js';
export type { DoctorOptions, DoctorReport, PresentedToken } from './doctor-options.js';

/** How many of the resource's authorization servers are checked. */
const MAX_AUTHORIZATION_SERVERS = 5;

/**
 * Runs every check against `options.serverUrl` and reports each. Never throws for what the server answers.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 */
export async function diagnose(options: DoctorOptions): Promise<DoctorReport> {
  const context = new DoctorContext(withheldOverPlainHttp(options));
  const lines: DoctorCheck[] = [];
  try {
    await runChecks(DOCTOR_CHECKS, context, lines);
  } catch (error) {
    // Whatever the server answered, the report is made: an unforeseen answer is a failed check, not a crash.
    lines.push({
      id: 'doctor.error',
      status: 'fail',
      summary: `The checks stopped: ${describeFailure(error)}.`,
      reference: REFERENCES.challenge,
    });
  } finally {
    await context.close();
  }
  const counts = { pass: 0, warn: 0, fail: 0, skip: 0 };
  for (const line of lines) counts[line.status]++;
  return { server: options.serverUrl, checks: lines, counts, ok: counts.fail === 0 };
}

/** Runs `checks` in order, appending their lines to `lines`. */
export async function runChecks(
  checks: readonly DiagnosticCheck[],
  context: DoctorContext,
  lines: DoctorCheck[],
): Promise<void> {
  for (let index = 0; index < checks.length && !context.halted;) {
    const check = checks[index];
    if (check === undefined) break;
    if (check.scope === 'server') {
      append(lines, check, await check.run(context));
      index++;
      continue;
    }
    const block: AuthorizationServerCheck[] = [];
    for (let next = checks[index]; next?.scope === 'authorization-server'; next = checks[++index])
      block.push(next);
    for (const server of context.authorizationServers.slice(0, MAX_AUTHORIZATION_SERVERS)) {
      for (const serverCheck of block) append(lines, serverCheck, await serverCheck.run(context, server));
    }
  }
}

function append(lines: DoctorCheck[], check: DiagnosticCheck, result: CheckResult): void {
  if (result === undefined) return;
  const findings: readonly Finding[] = 'status' in result ? [result] : result;
  for (const { status, summary, reference } of findings) {
    lines.push({ id: check.id, status, summary, reference: reference ?? check.reference });
  }
}

/**
 * The options with every token left out when the server is reached over plain http on a host that is not loopback
 * (a token in clear text can be read on the way; RFC 6750 Section 5.3, MCP "Communication Security"): the `token`
 * check then fails with the reason, and no token is sent.
 */
export function withheldOverPlainHttp(options: DoctorOptions): DoctorOptions {
  let url: URL;
  try {
    url = new URL(options.serverUrl);
  } catch {
    return options;
  }
  const plain = url.protocol === 'http:' && !isLoopbackHost(url.hostname);
  if (!plain) return options;
  const given = options.token !== undefined || options.wrongAudienceToken !== undefined;
  const { token: _token, wrongAudienceToken: _wrong, ...rest } = options;
  return given ? { ...rest, tokenWithheld: true } : rest;
}
