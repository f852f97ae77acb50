import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent, type UserAgentResponse } from '@portcullis/testing';
import {
  authorizationRequest,
  startAuthorizationServer,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

describe('the login and consent forms', () => {
  let as: AuthorizationServerFixture;
  let client: TestClient;
  let user: { username: string; password: string };
  beforeAll(async () => {
    as = await startAuthorizationServer();
    client = await as.createClient();
    user = await as.createUser();
  });
  afterAll(async () => {
    await as?.close();
  });

  /** Signs a new user in with a fresh user-agent and stops on the consent page (nobody has consented yet). */
  async function consentPage(): Promise<{ ua: HeadlessUserAgent; page: UserAgentResponse }> {
    const user = await as.createUser();
    const ua = new HeadlessUserAgent();
    const login = await ua.follow(await ua.get(authorizationRequest(as, client).url));
    const page = await ua.follow(
      await ua.submit(login.form(), { username: user.username, password: user.password }),
    );
    expect(page.url).toContain('/consent?interaction=');
    return { ua, page };
  }

  async function expectNothingWritten(run: () => Promise<void>): Promise<void> {
    const before = await as.counts();
    await run();
    expect(await as.counts()).toEqual(before);
  }

  it('refuses a consent POST without the CSRF token, writing nothing and redirecting nowhere', async () => {
    const { ua, page } = await consentPage();
    await expectNothingWritten(async () => {
      const response = await ua.submit(
        page.form(),
        { csrf: '' },
        { button: { name: 'decision', value: 'approve' } },
      );
      expect(response.status).toBe(403);
      expect(response.location).toBeUndefined();
    });
  });

  it("refuses a consent POST carrying another session's CSRF token", async () => {
    const victim = await consentPage();
    const attacker = await consentPage();
    await expectNothingWritten(async () => {
      const forged = await victim.ua.submit(
        victim.page.form(),
        { csrf: attacker.page.form().fields['csrf']![0]! },
        { button: { name: 'decision', value: 'approve' } },
      );
      expect(forged.status).toBe(403);
      expect(forged.location).toBeUndefined();
      // The attacker's token with the attacker's request but the victim's session cookie: still refused.
      const swapped = await victim.ua.submit(
        attacker.page.form(),
        {},
        { button: { name: 'decision', value: 'approve' } },
      );
      expect(swapped.status).toBe(403);
    });
  });

  it('refuses a consent POST from a browser that is not signed in', async () => {
    const { page } = await consentPage();
    await expectNothingWritten(async () => {
      const response = await new HeadlessUserAgent().submit(
        page.form(),
        {},
        { button: { name: 'decision', value: 'approve' } },
      );
      expect(response.status).toBe(403);
      expect(response.location).toBeUndefined();
    });
  });

  it('mints one code for a consent form submitted twice, and sends the same code again while it is unused', async () => {
    const { ua, page } = await consentPage();
    const form = page.form();
    const approve = { button: { name: 'decision', value: 'approve' } };
    const first = await ua.submit(form, {}, approve);
    const code = new URL(first.location!).searchParams.get('code');
    expect(code).toBeTruthy();
    const before = await as.counts();
    // The first answer lost (its instance died, the balancer sent the form again; or a second click): the same
    // redirect, from what was stored with the code, and nothing new.
    const second = await ua.submit(form, {}, approve);
    expect({ status: second.status, location: second.location }).toEqual({
      status: 303,
      location: first.location,
    });
    expect(await as.counts()).toEqual(before);
    // Not to another browser, even with the form (the handle and CSRF token): the expired page.
    const elsewhere = await new HeadlessUserAgent().submit(form, {}, approve);
    expect({ status: elsewhere.status, location: elsewhere.location }).toEqual({
      status: 400,
      location: undefined,
    });
    // Once the code is redeemed, nothing more: the browser had it.
    await as.prisma.authorizationCode.update({
      where: { codeHash: createHash('sha256').update(code!).digest('base64url') },
      data: { consumedAt: new Date() },
    });
    const third = await ua.submit(form, {}, approve);
    expect({ status: third.status, location: third.location }).toEqual({ status: 400, location: undefined });
    expect(await as.counts()).toEqual(before);
    // The redirect is stored sealed: the code is not readable in the database.
    const stored = await as.prisma.authorizationCode.findMany({ where: { interactionId: { not: null } } });
    expect(JSON.stringify(stored)).not.toContain(code!);
  });

  it('sends the redirect again only to the session it was issued in, for a form, while its grant stands', async () => {
    const approve = { button: { name: 'decision', value: 'approve' } };
    const expired = (answer: UserAgentResponse) => ({ status: answer.status, location: answer.location });
    /** `answer`'s status and redirect, having written nothing. */
    const refused = async (answer: () => Promise<UserAgentResponse>) => {
      const before = await as.counts();
      const outcome = expired(await answer());
      expect(await as.counts()).toEqual(before);
      return outcome;
    };
    const gone = { status: 400, location: undefined };
    // The page loaded again (history, the back button) is not an answer: the expired page.
    {
      const { ua, page } = await consentPage();
      const first = await ua.submit(page.form(), {}, approve);
      expect(first.status).toBe(303);
      expect(await refused(() => ua.get(page.url))).toEqual(gone);
    }
    // Signed out since (another person on this browser): the expired page.
    {
      const { ua, page } = await consentPage();
      const first = await ua.submit(page.form(), {}, approve);
      const code = new URL(first.location!).searchParams.get('code')!;
      const stored = await as.prisma.authorizationCode.findUniqueOrThrow({
        where: { codeHash: createHash('sha256').update(code).digest('base64url') },
      });
      const grant = await as.prisma.authorizationGrant.findUniqueOrThrow({ where: { id: stored.grantId } });
      await as.prisma.loginSession.update({
        where: { id: grant.sessionId! },
        data: { revokedAt: new Date() },
      });
      expect(await refused(() => ua.submit(page.form(), {}, approve))).toEqual(gone);
    }
    // Its grant revoked: the expired page.
    {
      const { ua, page } = await consentPage();
      const first = await ua.submit(page.form(), {}, approve);
      const code = new URL(first.location!).searchParams.get('code')!;
      const stored = await as.prisma.authorizationCode.findUniqueOrThrow({
        where: { codeHash: createHash('sha256').update(code).digest('base64url') },
      });
      await as.prisma.authorizationGrant.update({
        where: { id: stored.grantId },
        data: { revokedAt: new Date() },
      });
      expect(await refused(() => ua.submit(page.form(), {}, approve))).toEqual(gone);
    }
  });

  it('answers a consent form submitted twice at once with one code, the same to both', async () => {
    const { ua, page } = await consentPage();
    const form = page.form();
    const before = await as.counts();
    const approve = { button: { name: 'decision', value: 'approve' } };
    const answers = await Promise.all([ua.submit(form, {}, approve), ua.submit(form, {}, approve)]);
    expect(answers.map((answer) => answer.status)).toEqual([303, 303]);
    expect(answers[0]!.location).toContain('code=');
    expect(answers[1]!.location).toBe(answers[0]!.location);
    const after = await as.counts();
    expect({ codes: after.codes, grants: after.grants }).toEqual({
      codes: before.codes + 1,
      grants: before.grants + 1,
    });
  });

  it('refuses a login POST whose CSRF token belongs to another browser', async () => {
    const ua = new HeadlessUserAgent();
    const login = await ua.follow(await ua.get(authorizationRequest(as, client).url));
    const sessions = await as.prisma.loginSession.count();
    const response = await new HeadlessUserAgent().submit(login.form(), {
      username: user.username,
      password: user.password,
    });
    expect(response.status).toBe(403);
    expect(await as.prisma.loginSession.count()).toBe(sessions);
  });

  it('frames nothing: both pages forbid framing and load nothing external', async () => {
    const { page } = await consentPage();
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.body).not.toMatch(/<script|<link|src=/i);
    expect(page.body).toContain(client.clientId.split('-')[0]);
    expect(page.body).toContain('127.0.0.1');
    expect(page.body).toContain('http://localhost:4100/mcp');
  });

  it('sets the session cookie HttpOnly and SameSite=Lax', async () => {
    const ua = new HeadlessUserAgent();
    const login = await ua.follow(await ua.get(authorizationRequest(as, client).url));
    const submitted = await ua.submit(login.form(), { username: user.username, password: user.password });
    const port = new URL(as.issuer).port;
    const cookie = submitted.headers
      .getSetCookie()
      .find((value) => value.startsWith(`portcullis-session-${port}=`));
    expect(cookie).toMatch(/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
  });
});
