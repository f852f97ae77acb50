import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { REVISIONS } from '@portcullis/revisions';
import { expectBootedApp, startApp, type TestApp } from '@portcullis/testing';
import { AppModule } from '../src/app.module.js';

describe.each(REVISIONS)('the proxy under SPEC_REVISION=%s', (revision) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(AppModule, { env: { SPEC_REVISION: revision } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is alive and ready once its database is migrated, and echoes sane request ids', async () => {
    await expectBootedApp(app);
  });

  it('serves its authorization server metadata', async () => {
    const response = await fetch(`${app.url}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ issuer: 'http://localhost:4200' });
  });
});
