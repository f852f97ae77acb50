import { accessSync, constants } from 'node:fs';
import type { Browser, Page } from 'playwright-core';

/** Where Debian (and the CI image) installs Chromium; Playwright's own browser downloads are never used. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Flags for a headless Chromium on a closed network: without the background-networking ones it keeps trying to
 * reach Google services (component updates, sync, QUIC probes) and misbehaves.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Launches the system Chromium through `playwright-core`. A missing executable is an error with a message saying
 * so, never a skipped test: a browser test that cannot run must not pass.
 */
export async function launchChromium(executablePath: string = CHROMIUM_PATH): Promise<Browser> {
  try {
    accessSync(executablePath, constants.X_OK);
  } catch {
    throw new Error(
      `Chromium is not installed at ${executablePath}: browser tests need it (apt-get install chromium); ` +
        'Playwright browser downloads are not used',
    );
  }
  // Loaded here, not at the top, so that tests importing the harness without a browser do not pay for it.
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, args: [...CHROMIUM_ARGS] });
}

/**
 * Collects what a page should never report: console errors (Chromium logs Content Security Policy violations
 * there, e.g. a blocked inline style) and uncaught page errors. Attach before the first navigation.
 */
export function recordPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || /content security policy/i.test(message.text())) {
      problems.push(`console ${message.type()} at ${page.url()}: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`page error at ${page.url()}: ${error.message}`));
  return problems;
}
