import { chromium, type Browser } from 'playwright-core';
import { toolPath, TOOLS } from './tools.js';

/** Debian's Chromium (test/support/tools.ts finds it), headless, with nothing of its own on the network: no QUIC, sync, updates or background fetches. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: toolPath(TOOLS.chromium),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
