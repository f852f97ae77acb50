// `portcullis doctor` against a stub MCP server that gets one thing wrong at a time: each planted fault is reported
// by its own check, and a server that gets everything right passes. The checks of what operators most often get
// wrong, and a 2026-07-28-only server, are in doctor-operator-faults.spec.ts; the real protected server is checked
// end to end in tools/e2e/test/doctor.spec.ts.
import { afterEach, describe, expect, it } from '@jest/globals';
import { diagnose, type DoctorReport } from '@portcullis/client';
import { GOOD, OTHER_AUDIENCE, startDoctorStub, type DoctorStub, type Fault } from './support/doctor-stub.js';
import { runCli } from './support/run-cli.js';

describe('portcullis doctor against a stub server with planted faults', () => {
  let stub: DoctorStub | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  /** Runs the doctor with every token check, as JSON; the exit code and each check's status by id. */
  async function doctor(faults: readonly Fault[]) {
    stub = await startDoctorStub(faults);
    const args = ['doctor', stub.url, '--token', GOOD, '--wrong-audience-token', OTHER_AUDIENCE];
    const result = await runCli([...args, '--step-up-tool', 'notes_create', '--json'], {
      PORTCULLIS_HOME: '/nonexistent',
    });
    const report = JSON.parse(result.stdout) as DoctorReport;
    const status = (id: string) =>
      report.checks.filter((check) => check.id === id).map((check) => check.status);
    return { result, report, status };
  }

  it('passes a server that gets everything right, printing one line per check and a summary', async () => {
    const { result, report, status } = await doctor([]);
    expect(result.code).toBe(0);
    expect(report.counts.fail).toBe(0);
    expect(report.counts.warn).toBe(0);
    for (const id of [
      'challenge.status',
      'challenge.resource_metadata',
      'challenge.scope',
      'prm.path-aware',
      'as.issuer_identical',
      'as.pkce',
      'as.iss',
      'as.cimd_none',
      'scopes.offline_access',
      'token.accepted',
      'token.query',
      'token.body',
      'token.audience',
      'token.insufficient_scope',
      'cors.www_authenticate',
    ]) {
      expect({ id, status: status(id) }).toEqual({ id, status: ['pass'] });
    }
    // The text form: a line per check with its section, then the summary; the token never printed.
    const text = await runCli(['doctor', stub!.url, '--token', GOOD], { PORTCULLIS_HOME: '/nonexistent' });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^PASS {2}challenge\.status +An MCP request without a token gets 401\. {2}\[RFC 9728 5\.1\]$/m,
    );
    expect(text.stdout).toMatch(/^SKIP {2}token\.audience /m);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /: \d+ passed, 0 warnings, 0 failed, 6 skipped$/,
    );
    expect(text.stdout + text.stderr).not.toContain(GOOD);
  });

  it('fails a server without Protected Resource Metadata', async () => {
    const { result, status } = await doctor(['no-prm']);
    expect(result.code).toBe(1);
    expect(status('challenge.resource_metadata')).toEqual(['warn']);
    expect(status('prm.path-aware')).toEqual(['warn']);
    expect(status('prm.found')).toEqual(['fail']);
  });

  it('fails metadata whose resource is not the server', async () => {
    const { result, report, status } = await doctor(['wrong-resource']);
    expect(result.code).toBe(1);
    expect(status('prm.path-aware')).toEqual(['fail']);
    expect(report.checks.find((check) => check.id === 'prm.path-aware')!.summary).toContain(
      'https://other.example/mcp',
    );
    expect(status('prm.found')).toEqual(['fail']);
  });

  it('warns about a challenge without a scope', async () => {
    const { result, status } = await doctor(['no-scope']);
    expect(result.code).toBe(0);
    expect(status('challenge.scope')).toEqual(['warn']);
  });

  it('fails a server that accepts a token in the query string', async () => {
    const { result, status } = await doctor(['query-token']);
    expect(result.code).toBe(1);
    expect(status('token.query')).toEqual(['fail']);
    expect(status('token.body')).toEqual(['pass']);
  });

  it('fails an authorization server without PKCE S256', async () => {
    const { result, report, status } = await doctor(['no-s256']);
    expect(result.code).toBe(1);
    expect(status('as.pkce')).toEqual(['fail']);
    expect(report.checks.find((check) => check.id === 'as.pkce')!.reference.url).toContain(
      '#authorization-code-protection',
    );
  });

  it('fails a server that accepts a token issued for another resource', async () => {
    const { result, status } = await doctor(['audience-unchecked']);
    expect(result.code).toBe(1);
    expect(status('token.audience')).toEqual(['fail']);
  });

  it('fails resource metadata that the challenge points to when it names the origin, not the server', async () => {
    const { result, status } = await doctor(['origin-metadata-at-root']);
    expect(result.code).toBe(1);
    expect(status('prm.root')).toEqual(['fail']);
  });

  it('only warns about a broken discovery URL after one that works (clients stop at the first)', async () => {
    const { result, report } = await doctor(['broken-openid-configuration']);
    expect(result.code).toBe(0);
    expect(report.checks.filter((check) => check.id === 'as.discovery').map((check) => check.status)).toEqual(
      ['pass', 'warn'],
    );
  });

  it('never sends the token anywhere but the Authorization header', async () => {
    stub = await startDoctorStub(['query-token']);
    const seen: string[] = [];
    const recording = async (input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      seen.push(
        `${String(input)} ${typeof init?.body === 'string' ? init.body : ''} ${headers.get('authorization') ?? ''}`,
      );
      return fetch(input, init);
    };
    const report = await diagnose({ serverUrl: stub.url, token: { accessToken: GOOD }, fetch: recording });
    expect(report.checks.find((check) => check.id === 'token.query')?.status).toBe('fail');
    const withToken = seen.filter((line) => line.includes(GOOD));
    expect(withToken.length).toBeGreaterThan(0);
    for (const line of withToken) expect(line.endsWith(`Bearer ${GOOD}`)).toBe(true);
    for (const line of withToken) expect(line.split(' ')[0]).not.toContain(GOOD);
  });

  it('fails a server that does not answer, without throwing', async () => {
    stub = await startDoctorStub();
    const url = stub.url;
    await stub.close();
    stub = undefined;
    const result = await runCli(['doctor', url], { PORTCULLIS_HOME: '/nonexistent' });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL {2}server\.reachable /m);
  });
});
