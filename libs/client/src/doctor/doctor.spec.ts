import { describe, expect, it } from '@jest/globals';
import type { DiagnosticCheck, DoctorCheck } from './doctor-check.js';
import { DoctorContext } from './doctor-context.js';
import { diagnose, runChecks, withheldOverPlainHttp } from './doctor.js';
import { REFERENCES } from './references.js';
import { DOCTOR_CHECKS } from './checks/index.js';

const reference = REFERENCES.challenge;

/** A context whose resource metadata named `issuers`. */
function contextWith(issuers: string[]): DoctorContext {
  const context = new DoctorContext({ serverUrl: 'https://mcp.example/mcp' });
  for (const issuer of issuers) context.authorizationServers.push({ issuer });
  return context;
}

describe('running the doctor checks', () => {
  it('runs consecutive authorization server checks as one block per server, in the order the metadata names them', async () => {
    const checks: DiagnosticCheck[] = [
      { id: 'first', scope: 'server', reference, run: () => ({ status: 'pass', summary: 'first' }) },
      {
        id: 'as.a',
        scope: 'authorization-server',
        reference,
        run: (_c, s) => ({ status: 'pass', summary: s.issuer }),
      },
      {
        id: 'as.b',
        scope: 'authorization-server',
        reference,
        run: (_c, s) => ({ status: 'warn', summary: s.issuer }),
      },
      { id: 'last', scope: 'server', reference, run: () => ({ status: 'skip', summary: 'last' }) },
    ];
    const lines: DoctorCheck[] = [];
    await runChecks(checks, contextWith(['https://one.example', 'https://two.example']), lines);
    expect(lines.map(({ id, summary }) => `${id} ${summary}`)).toEqual([
      'first first',
      'as.a https://one.example',
      'as.b https://one.example',
      'as.a https://two.example',
      'as.b https://two.example',
      'last last',
    ]);
    expect(lines[1]?.reference).toBe(reference);
  });

  it('reports nothing for a check that does not apply, every finding of one that has several, and stops when halted', async () => {
    const checks: DiagnosticCheck[] = [
      { id: 'quiet', scope: 'server', reference, run: () => undefined },
      {
        id: 'many',
        scope: 'server',
        reference,
        run: () => [
          { status: 'pass', summary: 'one' },
          { status: 'fail', summary: 'two', reference: REFERENCES.pkce },
        ],
      },
      {
        id: 'halt',
        scope: 'server',
        reference,
        run: (context) => {
          context.halted = true;
          return { status: 'fail', summary: 'gone' };
        },
      },
      { id: 'never', scope: 'server', reference, run: () => ({ status: 'pass', summary: 'never' }) },
    ];
    const lines: DoctorCheck[] = [];
    await runChecks(checks, contextWith([]), lines);
    expect(lines.map(({ id, status }) => `${id} ${status}`)).toEqual(['many pass', 'many fail', 'halt fail']);
    expect(lines[1]?.reference).toBe(REFERENCES.pkce);
  });

  it('lists every check once, each with a section to read', () => {
    const ids = DOCTOR_CHECKS.map((check) => check.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const check of DOCTOR_CHECKS) expect(check.reference.url).toMatch(/^https:\/\//);
  });
});

describe('a token and plain http', () => {
  /** Records every request and answers each with the 401 of a server that wants a token. */
  function recordingFetch() {
    const seen: { url: string; authorization: string | null }[] = [];
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      seen.push({ url: request.url, authorization: request.headers.get('authorization') });
      return new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer' } });
    };
    return { fetch, seen };
  }

  it('sends no token to a server reached over plain http on a host that is not loopback, and fails the token check', async () => {
    const { fetch, seen } = recordingFetch();
    const report = await diagnose({
      serverUrl: 'http://mcp.example/mcp',
      token: { accessToken: 'a-live-token' },
      wrongAudienceToken: 'another-live-token',
      fetch,
    });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((request) => request.authorization !== null)).toEqual([]);
    expect(report.checks.find((check) => check.id === 'token')).toMatchObject({ status: 'fail' });
    expect(report.ok).toBe(false);
  });

  it('keeps the token for https and for plain http on loopback', () => {
    for (const serverUrl of [
      'https://mcp.example/mcp',
      'http://127.0.0.1:4100/mcp',
      'http://localhost/mcp',
    ]) {
      const options = { serverUrl, token: { accessToken: 'a-live-token' } };
      expect(withheldOverPlainHttp(options)).toBe(options);
    }
  });
});
