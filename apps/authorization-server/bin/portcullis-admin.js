#!/usr/bin/env node
// Committed launcher: npm links a bin only if its file exists at install time, and dist/ appears only after a build.
try {
  await import('../dist/admin/main.js');
} catch (error) {
  if (
    error?.code === 'ERR_MODULE_NOT_FOUND' &&
    String(error.message).includes('authorization-server/dist/admin')
  ) {
    process.stderr.write('portcullis-admin: not built yet; run `npx nx run-many -t build` first\n');
    process.exit(1);
  }
  throw error;
}
