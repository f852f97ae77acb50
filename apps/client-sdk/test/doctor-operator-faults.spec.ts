// `portcullis doctor` and what operators most often get wrong (each check's leading comment cites the public issue
// reports): each fault planted alone in an otherwise correct stub is reported by its own check and by no other; and
// a server that speaks only 2026-07-28 (the official SDK's `createMcpHandler` with `legacy: 'reject'`) passes every
// check, the token accepted through `server/discover`.
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { diagnose, type DoctorReport } from '@portcullis/client';
import { makeTestCertificates, type TestCertificates } from '@portcullis/testing';
import {
  GOOD,
  OTHER_AUDIENCE,
  STEP_UP_TOOL,
  startDoctorStub,
  type DoctorStub,
  type DoctorStubOptions,
  type Fault,
} from './support/doctor-stub.js';
import { runCli } from './support/run-cli.js';

/** The lines that did not pass or skip, as `{ id, status }`. */
function problems(report: DoctorReport) {
  return report.checks
    .filter((check) => check.status === 'warn' || check.status === 'fail')
    .map(({ id, status }) => ({ id, status }));
}

describe('portcullis doctor and what operators get wrong', () => {
  let stub: DoctorStub | undefined;
  let certificates: TestCertificates;
  beforeAll(() => {
    certificates = makeTestCertificates();
  });
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  /** Every check, with a token, a token for another resource and a tool the token may not call. */
  async function doctor(faults: readonly Fault[], options: DoctorStubOptions = {}) {
    stub = await startDoctorStub(faults, options);
    return diagnose({
      serverUrl: stub.url,
      fetch: stub.fetch,
      token: { accessToken: GOOD },
      wrongAudienceToken: OTHER_AUDIENCE,
      stepUpTool: STEP_UP_TOOL,
    });
  }

  it.each([
    ['issuer-trailing-slash', 'as.issuer_identical', 'fail'],
    ['root-metadata-other-server', 'prm.consistent', 'warn'],
    ['no-cors-expose', 'cors.www_authenticate', 'warn'],
    ['offline-access-in-resource', 'scopes.offline_access', 'warn'],
    ['cimd-without-none', 'as.cimd_none', 'warn'],
    ['no-iss', 'as.iss', 'warn'],
  ] as const)('reports %s with %s (%s) and nothing else', async (fault, id, status) => {
    const correct = await doctor([]);
    expect(problems(correct)).toEqual([]);
    expect(correct.checks.find((check) => check.id === id)?.status).toBe(
      id === 'prm.consistent' ? 'skip' : 'pass',
    );
    await stub?.close();
    const report = await doctor([fault]);
    expect(problems(report)).toEqual([{ id, status }]);
    expect(report.ok).toBe(status !== 'fail');
  });

  it('fails an http metadata URL on a server reached over https, and passes the same server without it', async () => {
    const correct = await doctor([], { tls: certificates });
    expect(problems(correct)).toEqual([]);
    expect(correct.checks.find((check) => check.id === 'metadata.https')?.status).toBe('pass');
    await stub?.close();
    const report = await doctor(['http-endpoint'], { tls: certificates });
    expect(problems(report)).toEqual([{ id: 'metadata.https', status: 'fail' }]);
    expect(report.checks.find((check) => check.id === 'metadata.https')?.summary).toContain('token_endpoint');
  });

  describe('a server that speaks only 2026-07-28', () => {
    it('refuses the 2025 initialize with 400 although the token is good (what the doctor used to probe with)', async () => {
      stub = await startDoctorStub([], { era: 'modern' });
      const response = await fetch(stub.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${GOOD}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        }),
      });
      expect(response.status).toBe(400);
      await response.body?.cancel();
    });

    it('passes every check, the token accepted through server/discover and the step-up probed with a stateless call', async () => {
      const report = await doctor([], { era: 'modern' });
      expect(problems(report)).toEqual([]);
      const accepted = report.checks.find((check) => check.id === 'token.accepted');
      expect(accepted?.status).toBe('pass');
      expect(accepted?.summary).toContain('server/discover: 2026-07-28');
      for (const id of ['token.query', 'token.body', 'token.audience', 'token.insufficient_scope']) {
        expect({ id, status: report.checks.find((check) => check.id === id)?.status }).toEqual({
          id,
          status: 'pass',
        });
      }
    });

    it('exits 0 from the command line', async () => {
      stub = await startDoctorStub([], { era: 'modern' });
      const args = ['doctor', stub.url, '--token', GOOD, '--step-up-tool', STEP_UP_TOOL];
      const result = await runCli(args, { PORTCULLIS_HOME: '/nonexistent' });
      expect(result.stdout).toMatch(
        /^PASS {2}token\.accepted +The token in the Authorization header is accepted/m,
      );
      expect(result.stdout).not.toMatch(/^(FAIL|WARN) /m);
      expect(result.code).toBe(0);
    });
  });

  it('passes a 2025-era server with sessions, falling back to initialize and ending the session it opened', async () => {
    const report = await doctor([], { era: 'legacy-sessions' });
    expect(problems(report)).toEqual([]);
    expect(report.checks.find((check) => check.id === 'token.accepted')?.summary).toContain(
      'initialize: 2025-11-25',
    );
    // notifications/initialized went through the SDK's protocol version check; the DELETE closed the session.
    expect(stub?.openSessions()).toBe(0);
  });

  it('checks CORS for the origin given with --origin, and refuses a value that is not an origin', async () => {
    stub = await startDoctorStub();
    const other = await runCli(['doctor', stub.url, '--origin', 'https://app.example.com', '--json'], {
      PORTCULLIS_HOME: '/nonexistent',
    });
    const report = JSON.parse(other.stdout) as DoctorReport;
    expect(problems(report)).toEqual([{ id: 'cors.www_authenticate', status: 'warn' }]);
    expect(report.checks.find((check) => check.id === 'cors.www_authenticate')?.summary).toContain(
      'https://app.example.com',
    );
    const bad = await runCli(['doctor', stub.url, '--origin', 'https://app.example.com/path'], {
      PORTCULLIS_HOME: '/nonexistent',
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--origin');
  });
});
