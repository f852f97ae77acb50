import assert from 'node:assert/strict';
import type { TestApp } from './app.js';

/**
 * What every Portcullis app shows once booted: `/healthz` 200, `/readyz` 200 (`no-store`) with its database
 * migrated, and request ids echoed (a sane `X-Request-Id` kept, anything else replaced by a UUID). Plain
 * `node:assert`, so the lib stays importable outside Jest (the demo uses its user-agent).
 */
export async function expectBootedApp(app: TestApp): Promise<void> {
  const alive = await fetch(`${app.url}/healthz`);
  assert.equal(alive.status, 200, '/healthz status');
  // Compared as JSON text: Jest runs tests in another realm, where deepStrictEqual sees other prototypes.
  assert.equal(JSON.stringify(await alive.json()), '{"status":"ok"}');
  const ready = await fetch(`${app.url}/readyz`);
  assert.equal(ready.status, 200, '/readyz status');
  assert.equal(ready.headers.get('cache-control'), 'no-store');
  // The app's own migrations, as it counts them (its database holds its tables alone): none pending.
  assert.equal(JSON.stringify(await ready.json()), '{"status":"ok","database":"ok"}');

  const kept = await fetch(`${app.url}/healthz`, { headers: { 'x-request-id': 'trace-42' } });
  assert.equal(kept.headers.get('x-request-id'), 'trace-42');
  const replaced = await fetch(`${app.url}/healthz`, { headers: { 'x-request-id': 'bad id\twith tab' } });
  assert.match(replaced.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
}
