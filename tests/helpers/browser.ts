import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium, which `.ci/run` installs; playwright-core drives it (no downloaded browser). */
export const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);

/**
 * `describe` for a test in a real browser. CI must run it (a missing chromium fails there);
 * elsewhere a machine without chromium skips it with a notice, so `npm test` passes on a fresh machine.
 */
export function describeInBrowser(name: string, fn: () => void): void {
  if (haveChromium || process.env.CI) {
    describe(name, fn);
    return;
  }
  console.log(`skipped (no ${CHROMIUM}: apt-get install -y chromium to run it): ${name}`);
  describe.skip(name, fn);
}

/** A headless chromium for one test file; close it in afterAll. */
export async function launchChromium(): Promise<Browser> {
  if (!haveChromium) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium to run the browser tests`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
