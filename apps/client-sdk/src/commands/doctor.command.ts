import { diagnose, type DoctorReport, type PresentedToken, type StoredTokenSet } from '@portcullis/client';
import { canonicalizeResourceUri } from '@portcullis/protocol';
import { openTokenStore } from '../authorization.js';
import { CLI_EXTENSIONS } from '../extensions.js';
import type { GlobalOptions } from '../options.js';
import { originOption, serverUrlArgument } from '../options.js';
import type { Output } from '../output.js';
import type { Command } from './command.js';

const MARK = { pass: 'PASS', warn: 'WARN', fail: 'FAIL', skip: 'SKIP' } as const;

/**
 * `portcullis doctor <server-url> [--token <t>] [--wrong-audience-token <t>] [--step-up-tool <name>] [--origin <o>] [--json]`:
 * black-box checks of an MCP server's authorization (see `diagnose` in `@portcullis/client`), one line per check with
 * its section, a summary, exit status 1 when any check fails. Without `--token`, the token `portcullis login` stored
 * for the server, if any. Tokens are never printed.
 */
export const doctorCommand: Command = async ({ options, positionals, output, env }) => {
  const serverUrl = serverUrlArgument(positionals, 'doctor');
  const browserOrigin = originOption(options.origin);
  const token =
    options.token === undefined
      ? await storedToken(serverUrl, options, env, output)
      : { accessToken: options.token };
  const report = await diagnose({
    serverUrl,
    ...(token === undefined ? {} : { token }),
    ...(options.wrongAudienceToken === undefined ? {} : { wrongAudienceToken: options.wrongAudienceToken }),
    ...(options.stepUpTool === undefined ? {} : { stepUpTool: options.stepUpTool }),
    ...(browserOrigin === undefined ? {} : { browserOrigin }),
  });
  if (options.json) output.result(JSON.stringify(report, null, 2));
  else print(report, output);
  return report.ok ? 0 : 1;
};

function print(report: DoctorReport, output: Output): void {
  const width = Math.max(...report.checks.map((check) => check.id.length));
  for (const check of report.checks) {
    output.result(
      `${MARK[check.status]}  ${check.id.padEnd(width)}  ${check.summary}  [${check.reference.label}]`,
    );
  }
  const { pass, warn, fail, skip } = report.counts;
  output.result(
    `${report.server}: ${pass} passed, ${warn} warning${warn === 1 ? '' : 's'}, ${fail} failed, ${skip} skipped`,
  );
}

/** The newest token `portcullis login` stored for this server; for a DPoP-bound one, proofs made with its key. */
async function storedToken(
  serverUrl: string,
  options: GlobalOptions,
  env: Readonly<Record<string, string | undefined>>,
  output: Output,
): Promise<PresentedToken | undefined> {
  let entry: StoredTokenSet | undefined;
  try {
    [entry] = await openTokenStore(options, env).findTokens(canonicalizeResourceUri(serverUrl));
  } catch (error) {
    output.info(`  · no stored token used (${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
  if (entry === undefined) return undefined;
  if (entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
    output.info(
      `  · the token stored for ${entry.resource} has expired; \`portcullis tools ${serverUrl}\` refreshes it, then run doctor again`,
    );
    return undefined;
  }
  output.info(`  · using the token stored for ${entry.resource} (client ${entry.clientId})`);
  const key = entry.tokenType.toLowerCase() === 'bearer' ? undefined : entry.proofKey;
  const hooks = key === undefined ? undefined : CLI_EXTENSIONS.clientProofOfPossession();
  if (key === undefined || hooks === undefined) return { accessToken: entry.accessToken };
  return {
    accessToken: entry.accessToken,
    scheme: hooks.scheme,
    proof: (request) => hooks.proof(key, request),
  };
}
