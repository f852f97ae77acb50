#!/usr/bin/env node
// Runs the public MCP conformance suite's client authorization scenarios against `portcullis conformance`:
//   1. `client --suite auth --spec-version 2026-07-28`
//   2. `client --suite auth --spec-version 2025-11-25`
//   3. `client --suite auth --spec-version 2025-06-18`
//   4. `client --requirements 2026-07-28` (every client scenario the revision requires, frozen at its release)
//   5. `client --scenario auth/client-credentials-basic --spec-version 2026-07-28 --force` (the client credentials
//      extension, MCP SEP-1046)
//   6. `client --scenario auth/client-credentials-jwt --spec-version 2026-07-28 --force` (the same extension with
//      private_key_jwt client authentication, RFC 7523 2.2)
//   7. `client --scenario auth/enterprise-managed-authorization --spec-version 2026-07-28 --force` (the
//      enterprise-managed authorization extension, MCP SEP-990: token exchange at an IdP, then the jwt-bearer grant)
//   8. `client --scenario auth/wif-jwt-bearer --spec-version 2026-07-28 --force` (workload identity federation,
//      MCP SEP-1933: the workload JWT with the jwt-bearer grant, no registration)
//   9. `client --scenario auth/dpop --spec-version 2026-07-28 --force` and 10. the same with `auth/dpop-nonce` (DPoP,
//      MCP SEP-1932 / RFC 9449: a proof at the token request, `Authorization: DPoP` and a fresh proof per MCP
//      request; the second with the servers' nonces)
// and prints scenarios passed / failed per run. Exit code 1 when an authorization scenario fails (with --strict:
// any scored scenario). The suite and the Node 22 it needs are installed under .cache/conformance (git-ignored).
//
//   node tools/conformance/run.mjs [--only <run-id>] [--scenario <name>] [--timeout <ms>] [--strict]
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureInstalled } from './lib/install.mjs';
import { isAuthScenario, readScenarioResults, scoredClientScenarios } from './lib/results.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cacheDir = join(root, '.cache', 'conformance');
const bin = join(root, 'apps', 'client-sdk', 'bin', 'portcullis.js');

// The client ID metadata document URL the suite's mock authorization servers expect a CIMD client to use
// (the suite's own fixture; the mock servers never fetch it).
const SUITE_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

const RUNS = [
  {
    id: 'auth-2026-07-28',
    title: 'auth suite at 2026-07-28',
    args: ['--suite', 'auth', '--spec-version', '2026-07-28'],
    specVersion: '2026-07-28',
    strictWarnings: true,
  },
  {
    // The suite's scenarios up to 2025-11-25 (metadata discovery variants, client ID metadata documents, the scope
    // challenge and step-up, pre-registration, token endpoint authentication), with the protocol version 2025-11-25.
    id: 'auth-2025-11-25',
    title: 'auth suite at 2025-11-25',
    args: ['--suite', 'auth', '--spec-version', '2025-11-25'],
    specVersion: '2025-11-25',
    strictWarnings: true,
  },
  {
    id: 'auth-2025-06-18',
    title: 'auth suite at 2025-06-18',
    args: ['--suite', 'auth', '--spec-version', '2025-06-18'],
    specVersion: '2025-06-18',
    strictWarnings: true,
  },
  {
    id: 'requirements-2026-07-28',
    title: 'requirements 2026-07-28',
    args: ['--requirements', '2026-07-28'],
    requirements: '2026-07-28',
    specVersion: '2026-07-28',
    strictWarnings: false,
  },
  {
    // An extension scenario (io.modelcontextprotocol/oauth-client-credentials, MCP SEP-1046): not in the auth suite
    // nor the requirement set, so run by name. The suite hands the client its credentials in
    // MCP_CONFORMANCE_CONTEXT (`client_id`, `client_secret`) and lists only client_credentials in the mock
    // authorization server's grant_types_supported. `--force`: the suite keeps extension scenarios off the spec
    // timeline, so it runs them at a revision only when asked to.
    id: 'client-credentials-2026-07-28',
    title: 'extension oauth-client-credentials at 2026-07-28',
    args: ['--scenario', 'auth/client-credentials-basic', '--spec-version', '2026-07-28', '--force'],
    specVersion: '2026-07-28',
    strictWarnings: true,
  },
  {
    // The same extension scenario with private_key_jwt (RFC 7523 2.2): MCP_CONFORMANCE_CONTEXT holds `client_id`,
    // `private_key_pem` (PKCS#8) and `signing_algorithm`; the mock authorization server lists only private_key_jwt
    // and ES256, and verifies the assertion's iss, sub and aud (its issuer).
    id: 'client-credentials-jwt-2026-07-28',
    title: 'extension oauth-client-credentials with private_key_jwt at 2026-07-28',
    args: ['--scenario', 'auth/client-credentials-jwt', '--spec-version', '2026-07-28', '--force'],
    specVersion: '2026-07-28',
    strictWarnings: true,
  },
  {
    // io.modelcontextprotocol/enterprise-managed-authorization (MCP SEP-990), also off the spec timeline. The suite
    // starts an IdP beside the mock authorization server and hands the client `client_id`, `client_secret`,
    // `idp_client_id`, `idp_id_token`, `idp_issuer` and `idp_token_endpoint` in MCP_CONFORMANCE_CONTEXT. The IdP
    // checks the RFC 8693 token exchange (subject_token_type id_token, requested_token_type id-jag, audience,
    // resource); the authorization server lists only the jwt-bearer grant and client_secret_basic, and checks the
    // ID-JAG's typ, aud (its issuer), client_id and resource.
    id: 'enterprise-managed-authorization-2026-07-28',
    title: 'extension enterprise-managed-authorization at 2026-07-28',
    args: ['--scenario', 'auth/enterprise-managed-authorization', '--spec-version', '2026-07-28', '--force'],
    specVersion: '2026-07-28',
    strictWarnings: true,
  },
  {
    // Workload identity federation (io.modelcontextprotocol/auth/wif, MCP SEP-1933), off the spec timeline too. The
    // mock authorization server lists only the jwt-bearer grant and token endpoint auth method `none`, offers no
    // registration, and hands the client `client_id`, `valid_jwt`, `wrong_audience_jwt` and `expired_jwt` in
    // MCP_CONFORMANCE_CONTEXT; it verifies the assertion's signature, aud and exp, and warns when a client retries
    // after a refusal or falls back to another grant.
    id: 'wif-jwt-bearer-2026-07-28',
    title: 'extension workload identity federation at 2026-07-28',
    args: ['--scenario', 'auth/wif-jwt-bearer', '--spec-version', '2026-07-28', '--force'],
    specVersion: '2026-07-28',
    strictWarnings: true,
  },
  {
    // DPoP (io.modelcontextprotocol/auth/dpop, MCP SEP-1932, RFC 9449), off the spec timeline too. The mock
    // authorization server lists dpop_signing_alg_values_supported [ES256] and issues a DPoP-bound JWT (cnf.jkt) to a
    // token request with a valid proof (htm POST, htu its token endpoint); the mock MCP server challenges with
    // `WWW-Authenticate: DPoP resource_metadata=…` and checks every POST /mcp for `Authorization: DPoP`, a proof of
    // the request (htm, htu, ath, the key of cnf.jkt) and a jti never seen before.
    id: 'dpop-2026-07-28',
    title: 'extension DPoP at 2026-07-28',
    args: ['--scenario', 'auth/dpop', '--spec-version', '2026-07-28', '--force'],
    specVersion: '2026-07-28',
    strictWarnings: true,
  },
  {
    // The same with nonces: both mock servers answer a proof without their nonce with `use_dpop_nonce` and a
    // DPoP-Nonce header (400 at the token endpoint, RFC 9449 8; 401 with a DPoP challenge at the MCP server, RFC 9449
    // 9), and check that the client retries with it.
    id: 'dpop-nonce-2026-07-28',
    title: 'extension DPoP with server nonces at 2026-07-28',
    args: ['--scenario', 'auth/dpop-nonce', '--spec-version', '2026-07-28', '--force'],
    specVersion: '2026-07-28',
    strictWarnings: true,
  },
];

const { values } = parseArgs({
  options: {
    only: { type: 'string', multiple: true },
    scenario: { type: 'string' },
    timeout: { type: 'string', default: '90000' },
    strict: { type: 'boolean', default: false },
  },
});

function log(line) {
  process.stdout.write(`${line}\n`);
}

function runSuite(installed, run, outputDir, command) {
  const args = [
    installed.suite,
    'client',
    ...(values.scenario === undefined
      ? run.args
      : ['--scenario', values.scenario, '--spec-version', run.specVersion]),
    '--command',
    command,
    '--output-dir',
    outputDir,
    '--timeout',
    values.timeout,
  ];
  const logFile = join(outputDir, 'suite.log');
  return new Promise((resolve, reject) => {
    const child = spawn(installed.node, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const sink = createWriteStream(logFile);
    child.stdout.pipe(sink);
    child.stderr.pipe(sink, { end: false });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, logFile }));
  });
}

async function main() {
  if (!existsSync(join(root, 'apps', 'client-sdk', 'dist', 'main.js'))) {
    throw new Error('portcullis is not built: run `npx nx run client-sdk:build` first');
  }
  if (/\s/.test(process.execPath) || /\s/.test(bin)) {
    throw new Error('the suite splits --command on spaces: run from a path without spaces');
  }
  const installed = ensureInstalled(cacheDir, log);
  const command = `${process.execPath} ${bin} conformance --client-metadata-url ${SUITE_CLIENT_METADATA_URL}`;
  const selected = RUNS.filter((run) => values.only === undefined || values.only.includes(run.id));
  let failed = false;
  for (const run of selected) {
    const outputDir = join(cacheDir, 'results', run.id);
    rmSync(outputDir, { recursive: true, force: true });
    mkdirSync(outputDir, { recursive: true });
    log(`\n== ${run.title}: conformance client ${run.args.join(' ')}`);
    const { code, logFile } = await runSuite(installed, run, outputDir, command);
    const results = readScenarioResults(outputDir, { strictWarnings: run.strictWarnings });
    if (results.length === 0) {
      log(`  no scenario results (suite exit ${code}); see ${logFile}`);
      failed = true;
      continue;
    }
    const scored =
      run.requirements === undefined
        ? undefined
        : await scoredClientScenarios(
            installed.yamlModule,
            join(installed.requirementsDir, `${run.requirements}.yaml`),
          );
    const groups = [
      [
        'authorization',
        results.filter((r) => isAuthScenario(r.scenario) && (scored === undefined || scored.has(r.scenario))),
      ],
      ['other scored', results.filter((r) => !isAuthScenario(r.scenario) && scored?.has(r.scenario))],
      ['not scored', results.filter((r) => scored !== undefined && !scored.has(r.scenario))],
    ];
    for (const [name, group] of groups) {
      if (group.length === 0) continue;
      const passed = group.filter((r) => r.passed).length;
      log(`  ${name}: ${group.length} scenarios, ${passed} passed, ${group.length - passed} failed`);
      for (const result of group) {
        log(`    ${result.passed ? '✓' : '✗'} ${result.scenario}`);
        for (const failure of result.failures)
          log(`        ${failure.status} ${failure.id}: ${failure.description}`);
      }
      if (name === 'authorization' && passed < group.length) failed = true;
      if (name === 'other scored' && passed < group.length && values.strict) failed = true;
    }
    log(`  suite exit code ${code}; full output in ${logFile}`);
  }
  log(failed ? '\nConformance: FAILED' : '\nConformance: all authorization scenarios passed');
  return failed ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`conformance: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
