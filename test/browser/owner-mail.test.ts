import { mkdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { LocalRuntime } from '#local/runtime';
import { createApp } from '#lambdas/admin/apps';
import { startTestRuntime } from '../support/runtime.js';
import { launchChromium } from '../support/browser.js';

/** The console's owner mail: a bouncing owner's address marked on the applications list, listed and lifted. */
const ADMIN_KEY = 'owner-mail-console-key-0123456789';
const BOUNCING = 'bouncing-owner@console.example';
let runtime: LocalRuntime;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  runtime = await startTestRuntime({ adminKey: ADMIN_KEY, mailEvents: { bounce: [BOUNCING] } });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.on('dialog', (dialog) => void dialog.accept());
});
afterEach(async ({ task }) => {
  if (task.result?.state === 'fail') {
    mkdirSync('test-results/console', { recursive: true });
    await page.screenshot({ path: 'test-results/console/owner-mail.png', fullPage: true });
  }
});
afterAll(async () => {
  await browser?.close();
  await runtime?.stop();
});

describe('owner mail in the console (Chromium)', () => {
  it('marks the suppressed owner on the applications list, lists the address and lifts it', async () => {
    const { app } = await createApp(
      runtime.store,
      { groupId: 'demo-group', name: 'Bouncing owner app', scopes: ['locations:read'], ownerEmail: BOUNCING },
      Date.now(),
    );
    await runtime.store.mailOutbox.queue('rate-limit#console#1#warning', { to: BOUNCING, subject: 'alert', text: 'x' }, Date.now());
    await runtime.sweep();

    await page.goto(`${runtime.url}/console/`);
    await page.getByLabel('Admin key').fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const row = page.getByRole('table', { name: 'Applications' }).getByRole('row').filter({ hasText: app.clientId });
    await expect.poll(() => row.textContent()).toContain(`${BOUNCING} suppressed`);

    await page.getByRole('navigation').getByRole('link', { name: 'Owner mail' }).click();
    const listed = page.getByRole('table', { name: 'Suppressed owner addresses' }).getByRole('row').filter({ hasText: BOUNCING });
    expect(await listed.textContent()).toContain('bounce');
    await listed.getByRole('button', { name: 'Lift' }).click();
    await page.getByText('No address is suppressed.').waitFor();
    expect(await runtime.store.mailSuppressions.suppressed([BOUNCING])).toEqual(new Set());
  });
});
