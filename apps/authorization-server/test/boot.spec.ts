import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { expectBootedApp, startApp, type TestApp } from '@portcullis/testing';
import { AppModule } from '../src/app.module.js';

describe('the authorization-server', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(AppModule);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is alive and ready once its database is migrated, and echoes sane request ids', async () => {
    await expectBootedApp(app);
  });
});
