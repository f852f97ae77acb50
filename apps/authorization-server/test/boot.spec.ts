import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApp, type TestApp } from '@portcullis/testing';
import { AppModule } from '../src/app.module.js';

describe('the authorization-server', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(AppModule);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is alive and ready once its database is migrated', async () => {
    const alive = await fetch(`${app.url}/healthz`);
    expect(alive.status).toBe(200);
    expect(await alive.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${app.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(await app.database.database.pendingMigrations()).toEqual([]);
  });

  it('echoes a sane X-Request-Id and replaces one that is not', async () => {
    const kept = await fetch(`${app.url}/healthz`, { headers: { 'x-request-id': 'trace-42' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-42');
    const replaced = await fetch(`${app.url}/healthz`, { headers: { 'x-request-id': 'bad id\twith tab' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
