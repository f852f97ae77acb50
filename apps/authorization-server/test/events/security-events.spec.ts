// The security event log: each event is written by the action that causes it, as a row (with the request id and the
// client address of the request) and a structured log line; `portcullis-admin events` lists them; the housekeeping
// sweep deletes those past SECURITY_EVENT_RETENTION.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  HousekeepingRepository,
  HousekeepingService,
  SecurityEventRepository,
} from '@portcullis/authorization';
import { HeadlessUserAgent } from '@portcullis/testing';
import { runAdmin } from '../../src/admin/admin.js';
import { basic, issueTokens, postForm } from '../introspection/introspection.helpers.js';
import {
  authorizationRequest,
  authorize,
  PASSWORD,
  redeem,
  RESOURCE,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

describe('security events', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({ captureLogs: true, env: { SECURITY_EVENT_RETENTION: '86400' } });
  });
  afterAll(async () => {
    await as?.close();
  });

  const eventsOf = (type: string, where: { clientId?: string; userId?: string } = {}) =>
    as.prisma.securityEvent.findMany({ where: { type, ...where }, orderBy: { at: 'asc' } });

  it('records a failed and a successful sign-in, the consent, with the request id and address', async () => {
    const user = await as.createUser();
    const client = await as.createClient();
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(as, client);
    // A wrong password first, then the flow as a person completes it.
    let page = await ua.get(request.url);
    while ([302, 303].includes(page.status) && page.location) page = await ua.follow(page);
    const requestId = randomUUID();
    const failed = await ua.submit(
      page.form(),
      { username: user.username, password: `${PASSWORD}!` },
      { headers: { 'x-request-id': requestId } },
    );
    expect(failed.status).toBe(303);
    const callback = await authorize(ua, request, user, client);
    expect((await redeem(as, client, callback, request)).status).toBe(200);

    const [signInFailed] = await eventsOf('sign_in.failed', { clientId: client.clientId });
    expect(signInFailed).toMatchObject({ requestId, ip: '127.0.0.1', detail: { username: user.username } });
    expect(await eventsOf('sign_in.succeeded', { userId: user.id, clientId: client.clientId })).toHaveLength(
      1,
    );
    const [consent] = await eventsOf('consent.granted', { userId: user.id, clientId: client.clientId });
    expect(consent?.detail).toEqual({ resource: RESOURCE, scopes: ['notes:read'] });
    // And a log line, with the event's type as a field.
    const line = as.app
      .logs()
      .split('\n')
      .find((text) => text.includes('"securityEvent":"sign_in.failed"'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ level: 40, clientId: client.clientId, req: { id: requestId } });
  });

  it('records a replayed code and a reused refresh token, each with the grant it revoked', async () => {
    const user = await as.createUser();
    const client = await as.createClient();
    const request = authorizationRequest(as, client);
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const tokens = await redeem(as, client, callback, request);
    expect((await redeem(as, client, callback, request)).status).toBe(400);
    const [replay] = await eventsOf('authorization_code.replayed', { clientId: client.clientId });
    expect(replay).toMatchObject({ userId: user.id, detail: { revoked: true } });

    const other = authorizationRequest(as, client);
    const second = await redeem(
      as,
      client,
      await authorize(new HeadlessUserAgent(), other, user, client),
      other,
    );
    const refresh = () =>
      tokenRequest(as, {
        grant_type: 'refresh_token',
        refresh_token: second.body['refresh_token'] as string,
        client_id: client.clientId,
      });
    expect((await refresh()).status).toBe(200);
    expect((await refresh()).status).toBe(400);
    const [reuse] = await eventsOf('refresh_token.reused', { clientId: client.clientId });
    expect(reuse).toMatchObject({ userId: user.id, detail: { revoked: true } });
    expect(tokens.status).toBe(200);
  });

  it('records a registration and its deletion through RFC 7592', async () => {
    const registered = await fetch(`${as.app.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Evented',
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      }),
    });
    expect(registered.status).toBe(201);
    const body = (await registered.json()) as {
      client_id: string;
      registration_access_token: string;
      registration_client_uri: string;
    };
    expect(await eventsOf('client.registered', { clientId: body.client_id })).toHaveLength(1);
    const deleted = await fetch(body.registration_client_uri, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${body.registration_access_token}` },
    });
    expect(deleted.status).toBe(204);
    const [event] = await eventsOf('client.deleted', { clientId: body.client_id });
    expect(event?.detail).toEqual({ by: 'client' });
  });

  it('records an introspection refused to a client that is not the resource server of the token', async () => {
    const user = await as.createUser();
    const client = await as.createClient();
    const snooper = await as.createClient({ confidential: 'client_secret_basic' });
    const tokens = await issueTokens(as, client, user);
    const answer = await postForm(as, 'introspect', { token: tokens.access_token }, basic(snooper));
    expect(answer.body).toEqual({ active: false });
    const [event] = await eventsOf('introspection.refused', { clientId: snooper.clientId });
    expect(event?.detail).toMatchObject({ audience: RESOURCE });
  });

  it('records a key rotation and lists the events with portcullis-admin events', async () => {
    const out: string[] = [];
    const run = (args: string[]) =>
      runAdmin(
        args,
        {},
        { out: (text) => out.push(text), err: (text) => out.push(text) },
        {
          database: as.app.database.database,
        },
      );
    const [first] = await eventsOf('signing_key.rotated');
    // The key the first boot made.
    expect(first?.detail).toMatchObject({ first: true });
    expect(await run(['keys', 'rotate'])).toBe(0);
    const [, rotated] = await eventsOf('signing_key.rotated');
    expect(rotated?.detail).toMatchObject({
      by: 'operator',
      retired: [(first?.detail as { kid: string }).kid],
    });

    out.length = 0;
    expect(await run(['events', '--since', '1h', '--type', 'signing_key.rotated', '--json'])).toBe(0);
    const listed = JSON.parse(out.join('')) as { type: string; detail: { kid: string; by?: string } }[];
    expect(listed.map((event) => event.type)).toEqual(['signing_key.rotated', 'signing_key.rotated']);
    expect(listed[1]).toMatchObject({ detail: { by: 'operator' } });
    out.length = 0;
    expect(await run(['events', '--since', '1h', '--type', 'client.registered'])).toBe(0);
    expect(out.join('')).toMatch(/client\.registered {2}client dcr_/);
    out.length = 0;
    expect(await run(['events', '--since', 'yesterday'])).toBe(2);
    expect(out.join('')).toContain('--since takes a duration');
    out.length = 0;
    expect(await run(['events', '--type', 'nothing.happened'])).toBe(2);
    expect(out.join('')).toContain('unknown event type nothing.happened');
  });

  it('deletes the events past the retention in the housekeeping sweep', async () => {
    const rows = new SecurityEventRepository(as.prisma);
    await rows.insert({ type: 'sign_in.failed', detail: { username: 'old' } });
    const old = await as.prisma.securityEvent.findFirstOrThrow({
      where: { detail: { equals: { username: 'old' } } },
    });
    await as.prisma.securityEvent.update({
      where: { id: old.id },
      data: { at: new Date(Date.now() - 2 * 86_400_000) },
    });
    const sweep = new HousekeepingService(
      new HousekeepingRepository(as.prisma),
      { securityEventRetention: 86_400 },
      rows,
    );
    const result = await sweep.sweep();
    expect(result.securityEvents).toBe(1);
    expect(await as.prisma.securityEvent.count({ where: { id: old.id } })).toBe(0);
    expect(await as.prisma.securityEvent.count()).toBeGreaterThan(0);
  });
});
