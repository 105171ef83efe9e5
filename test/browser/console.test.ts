import { mkdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { LocalRuntime } from '#local/runtime';
import { createApp } from '#lambdas/admin/apps';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { startTestRuntime } from '../support/runtime.js';
import { launchChromium } from '../support/browser.js';

/**
 * The administration console in a real browser (Debian's Chromium driven by
 * playwright-core) against a real runtime and a real HTTPS receiver: what an
 * administrator does, by mouse and by keyboard, at desktop and phone width.
 */
const ADMIN_KEY = 'console-test-admin-key-0123456789';
const SHOTS = 'test-results/console';
let runtime: LocalRuntime;
let browser: Browser;
let page: Page;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret = '';
let answer = 200;

beforeAll(async () => {
  runtime = await startTestRuntime({
    adminKey: ADMIN_KEY,
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    config: { webhookAllowLoopback: true, webhookTimeScale: 0.02 },
  });
  receiver = await startReceiver({ secret: () => secret, behave: () => answer });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
  await runtime?.stop();
});
beforeEach(async () => {
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  // Destructive actions ask first; the administrator agrees.
  page.on('dialog', (dialog) => void dialog.accept());
  answer = 200;
});
afterEach(async ({ task }) => {
  if (task.result?.state === 'fail') {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}/${task.name.replace(/[^a-z0-9]+/gi, '-')}.png`, fullPage: true });
  }
  await page.close();
});

async function signIn(): Promise<void> {
  await page.goto(`${runtime.url}/console/`);
  await page.getByLabel('Admin key').fill(ADMIN_KEY);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Applications' }).waitFor();
}

const nav = (name: string) => page.getByRole('navigation').getByRole('button', { name }).click();

describe('administration console (Chromium)', { timeout: 60_000 }, () => {
  it('serves the page with the security headers and no inline script', async () => {
    const response = await fetch(`${runtime.url}/console/`);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    expect(await response.text()).not.toMatch(/<script>(?!<\/script>)|<script(?![^>]*src=)[^>]*>/);
  });

  it('refuses a wrong key with the reason, and keeps the key out of storage and cookies', async () => {
    await page.goto(`${runtime.url}/console/`);
    await page.getByLabel('Admin key').fill('not-the-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('refused');
    await signIn();
    // In the page, where the browser's globals are (this file is typed for Node).
    const stored = await page.evaluate(() => {
      const w = globalThis as any;
      return JSON.stringify({ local: { ...w.localStorage }, session: { ...w.sessionStorage }, cookie: w.document.cookie });
    });
    expect(stored).not.toContain(ADMIN_KEY);
  });

  it('creates an application (secret shown once), adds a destination, tests it to HEALTHY, sees FAILING and retries, dead-letters and redrives from the page, rotates the secret', async () => {
    await signIn();
    await page.getByLabel('Name').fill('Browser app');
    await page.getByLabel('bevq:read').check();
    await page.getByRole('button', { name: 'Create' }).click();
    const clientSecret = (await page.getByRole('region', { name: 'Client secret' }).locator('code').textContent())!;
    expect(clientSecret).toMatch(/\S{20,}/);
    await expect.poll(() => page.getByRole('table', { name: 'Applications' }).textContent()).toContain('Browser app');
    // Shown once: drawn again, the page no longer holds it.
    await nav('Applications');
    await page.getByRole('region', { name: 'Client secret' }).waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(clientSecret);

    await nav('Destinations');
    await page
      .getByLabel('Application')
      .selectOption({ label: (await page.getByLabel('Application').locator('option', { hasText: 'Browser app' }).first().textContent())! });
    await page.getByLabel('Name').fill('Bar hook');
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add' }).click();
    secret = (await page.getByRole('region', { name: 'Signing secret' }).locator('code').textContent())!;
    await nav('Destinations');
    await page.getByRole('button', { name: 'Bar hook' }).click();

    // Only the locations the destination and its application cover are offered.
    await page.getByLabel('Location').selectOption('nyc-midtown');
    await page.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => page.locator('#test-result').textContent(), { timeout: 20_000 }).toContain('SUCCEEDED');
    expect(await page.locator('#test-result').textContent()).toContain('HEALTHY');
    expect(receiver.received.at(-1)?.verified).toBe(true);

    // The receiver fails: the test is retried and the destination shows FAILING.
    answer = 503;
    await page.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => page.locator('#test-result').textContent(), { timeout: 20_000 }).toContain('RETRY_PENDING');
    expect(await page.locator('#test-result').textContent()).toContain('FAILING');
    const failing = (await page.locator('#test-result').textContent())!.match(/dlv_[0-9a-f]{32}/)![0];
    await waitForStatus(runtime, failing, ['DEAD_LETTER'], 30_000);

    // Dead-lettered after the policy's attempts (on the runtime's time scale); redriven from the page, it succeeds.
    answer = 200;
    await nav('Dead letters');
    const row = page.getByRole('row').filter({ hasText: failing });
    await row.getByRole('button', { name: 'Inspect' }).click();
    await expect.poll(() => page.locator('#dead-letter').textContent()).toContain('attempts_exhausted');
    const detail = (await page.locator('#dead-letter').textContent())!;
    expect(detail).toContain('customer_api.webhook.test');
    expect(detail).not.toContain(secret);
    await row.getByRole('button', { name: 'Redrive' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('1 queued again');
    expect(await waitForStatus(runtime, failing, ['SUCCEEDED', 'DEAD_LETTER'], 20_000)).toMatchObject({ status: 'SUCCEEDED', redrives: 1 });

    // The destination's history and its 24-hour chart.
    await nav('Destinations');
    await page.getByRole('button', { name: 'Bar hook' }).click();
    const history = page.getByRole('table', { name: 'Delivery history' });
    await expect.poll(() => history.textContent()).toContain(failing);
    expect(await page.locator('figcaption').textContent()).toMatch(/SUCCEEDED/);
    // Filtered by status (it succeeded after its redrive), then by a period.
    await page.getByLabel('Status').selectOption('DEAD_LETTER');
    await expect.poll(() => history.textContent()).not.toContain(failing);
    await page.getByLabel('Status').selectOption('SUCCEEDED');
    await expect.poll(() => history.textContent()).toContain(failing);
    await page.getByLabel('Since').selectOption({ label: 'the last hour' });
    await expect.poll(() => history.textContent()).toContain(failing);

    // A rotated secret signs the next delivery.
    await nav('Destinations');
    await page.getByRole('button', { name: 'Bar hook' }).click();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = (await page.getByRole('region', { name: 'Signing secret' }).locator('code').textContent())!;
    expect(rotated).not.toBe(secret);
    secret = rotated;
    await page.getByLabel('Location').selectOption('nyc-midtown');
    await page.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => page.locator('#test-result').textContent(), { timeout: 20_000 }).toContain('SUCCEEDED');
    expect(receiver.received.at(-1)?.verified).toBe(true);

    // The menus page shows the demo group's published menu.
    await nav('Menus');
    await expect.poll(() => page.getByRole('table', { name: 'Menus by location' }).textContent()).toContain('nyc-midtown');

    // An edit with a blank URL keeps the URL.
    await nav('Destinations');
    await page.getByRole('button', { name: 'Bar hook' }).click();
    await page.getByLabel('New name').fill('Renamed hook');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Destination Renamed hook' }).waitFor();
    expect(await page.locator('section p').first().textContent()).toContain('hooks.example.test');

    // Every change is on the audit page, and the filter narrows it to one destination's.
    await nav('Audit trail');
    const audit = (await page.getByRole('table', { name: 'Changes, newest first' }).textContent())!;
    for (const operation of ['createApp', 'addDestination', 'sendTest', 'redriveDeadLetter', 'rotateSecret', 'editDestination'])
      expect(audit).toContain(operation);
    expect(audit).not.toContain(secret);
    const id = (await runtime.store.destinations.page({ limit: 1000 })).destinations.find((d) => d.name === 'Renamed hook')!.destinationId;
    await page.getByLabel('Destination id').fill(id);
    await page.getByRole('button', { name: 'Filter' }).click();
    // A loaded machine may take more than the poll's default second to answer the filtered page.
    await expect
      .poll(() => page.getByRole('table', { name: 'Changes, newest first' }).textContent(), { timeout: 10_000 })
      .not.toContain('createApp');
    expect(await page.getByRole('table', { name: 'Changes, newest first' }).textContent()).toContain('editDestination');
  });

  it("rotates an application's client secret with the overlap asked for, and lists legacy credentials with their last use", async () => {
    const created = await createApp(runtime.store, { groupId: 'demo-group', name: 'Till', scopes: ['locations:read'] }, Date.now());
    const legacy = await createApp(
      runtime.store,
      { groupId: 'demo-group', name: 'Old POS link', scopes: ['locations:read'] },
      Date.now(),
      'legacy_bearer',
    );
    page.removeAllListeners('dialog');
    const asked: string[] = [];
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.accept('6');
    });
    await signIn();
    const row = page.getByRole('row').filter({ hasText: created.app.clientId });
    await row.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByRole('region', { name: 'Client secret' });
    await shown.waitFor();
    const rotated = (await shown.locator('code').textContent())!;
    expect(asked[0]).toMatch(/0 to 168/);
    const token = await fetch(`${runtime.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: created.app.clientId, client_secret: rotated }),
    });
    expect(token.status).toBe(200);
    const stored = (await runtime.store.apps.get(created.app.clientId))!;
    expect(Date.parse(stored.previousSecretExpiresAt!) - Date.parse(stored.secretRotatedAt!)).toBe(6 * 3_600_000);

    const legacyRow = page
      .getByRole('table', { name: 'Legacy bearer credentials' })
      .getByRole('row')
      .filter({ hasText: legacy.app.clientId });
    expect(await legacyRow.textContent()).toContain('never');
    expect(await legacyRow.textContent()).toContain(legacy.app.tokenPrefix);
    expect(await page.content()).not.toContain(legacy.legacyCredential);
  });

  it('works by keyboard alone, and reads at 320 px without sideways scrolling', async () => {
    await page.setViewportSize({ width: 320, height: 640 });
    await page.goto(`${runtime.url}/console/`);
    // The key field has the focus once the page has started; Enter submits.
    await expect.poll(() => page.evaluate(() => (globalThis as any).document.activeElement?.name)).toBe('adminKey');
    await page.keyboard.type(ADMIN_KEY);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    // The page's heading has the focus; back to the navigation with Shift+Tab, and Enter opens Destinations.
    for (
      let tabs = 0;
      tabs < 10 && (await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)) !== 'Destinations';
      tabs++
    )
      await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Destinations' }).waitFor();
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    // Every control has a label.
    const unlabelled = await page.evaluate(
      () => [...(globalThis as any).document.querySelectorAll('input, select')].filter((c: any) => !c.labels?.length).length,
    );
    expect(unlabelled).toBe(0);
  });
});
