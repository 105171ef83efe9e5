import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import axe from 'axe-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { LocalRuntime } from '#local/runtime';
import { createApp } from '#lambdas/admin/apps';
import { sampleMenu } from '#local/demo-menu';
import { addDestination, sendTest } from '#lambdas/webhooks/destination-operations';
import * as state from '#lambdas/webhooks/attempt-rules';
import { DESTINATIONS_PER_APPLICATION } from '#lambdas/webhooks/destination-limit';
import { markerOf, newDelivery, type Delivery } from '#lambdas/webhooks/deliveries';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { SEQUENCE_SCALE } from '../fixtures/webhook-scale.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { storedDestination } from '../fixtures/stored-destination.js';
import { startTestRuntime } from '../support/runtime.js';
import { launchChromium } from '../support/browser.js';
import { expectSigningSecret } from '../support/signing-secret.js';
import { PATIENCE_MS } from '../support/eventually.js';

/**
 * The administration console in a real browser (Debian's Chromium driven by
 * playwright-core) against a real runtime and a real HTTPS receiver: what an
 * administrator does, by mouse and by keyboard, at desktop and phone width,
 * every page scanned by axe-core, and the lists at a platform's size.
 */
const ADMIN_KEY = 'console-test-admin-key-0123456789';
const SHOTS = 'test-results/console';
/** axe-core's script, as it is injected into a page. */
const AXE_SOURCE = axe.source;
let runtime: LocalRuntime;
let browser: Browser;
let page: Page;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret = '';
let answer = 200;
/** Console errors and uncaught page errors, of every page the tests open. */
const consoleErrors: string[] = [];

beforeAll(async () => {
  runtime = await startTestRuntime({
    adminKey: ADMIN_KEY,
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    config: { webhookAllowLoopback: true, webhookTimeScale: SEQUENCE_SCALE },
  });
  receiver = await startReceiver({ secret: () => secret, behave: () => answer });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
  await runtime?.stop();
});
beforeEach(async () => {
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // Destructive actions ask first; the administrator agrees.
  page.on('dialog', (dialog) => void dialog.accept());
  page.on('console', (message) => void (message.type() === 'error' && consoleErrors.push(`${message.text()} ${message.location().url}`)));
  page.on('pageerror', (err) => void consoleErrors.push(err.message));
  answer = 200;
});
afterEach(async ({ task }) => {
  if (task.result?.state === 'fail') {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}/${task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 80)}.png`, fullPage: true });
  }
  await page.close();
});

async function signIn(): Promise<void> {
  await page.goto(`${runtime.url}/console/`);
  await page.getByLabel('Admin key').fill(ADMIN_KEY);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Applications' }).waitFor();
}

const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name }).click();
/** The row of a dead letter (its detail row, once open, names it too). */
const deadLetterRow = (deliveryId: string) => page.locator('tr', { has: page.getByRole('checkbox', { name: `Select ${deliveryId}` }) });

/** Every page of the console, signed in: its navigation entry and heading (a destination's page through its list). */
const PAGES = ['Applications', 'Destinations', 'Dead letters', 'Deliveries', 'Menus', 'Audit trail', 'Owner mail', 'Token keys'] as const;
async function everyPage(visit: (name: string) => Promise<void>): Promise<void> {
  // Run alone (vitest -t), a test still has a destination to open.
  if (!(await runtime.store.destinations.page({ limit: 1 })).destinations.length) {
    const { app } = await createApp(runtime.store, { groupId: 'demo-group', name: 'Walk app', scopes: ['bevq:read'] }, Date.now());
    await addDestination(runtime.deps, { clientId: app.clientId, name: 'Walk hook', url: receiver.url });
  }
  for (const name of PAGES) {
    // Chosen again, a page already shown is drawn anew: wait for the new drawing (its heading then has focus), not the old.
    const drawn = await page.locator('#main > *').first().elementHandle();
    await nav(name);
    if (drawn) await page.waitForFunction((el) => !el.isConnected, drawn);
    await page.getByRole('heading', { name, exact: true }).waitFor();
    await visit(name);
  }
  await nav('Destinations');
  await page.getByRole('table', { name: 'Destinations' }).locator('tbody td:first-child a').first().click();
  await page.getByRole('heading', { name: /^Destination / }).waitFor();
  await visit('A destination');
}

/** axe-core's serious and critical violations on the page as it is now. */
async function axeViolations(): Promise<{ id: string; impact: string; targets: string[] }[]> {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')),
    }));
  });
  return (violations as { id: string; impact: string; targets: string[] }[]).filter(
    (v) => v.impact === 'serious' || v.impact === 'critical',
  );
}

/** The controls Tab alone does not reach, walking the page from its top (nothing else pressed). */
async function unreachedByTab(): Promise<string[]> {
  const count = await page.evaluate(() => {
    const doc = (globalThis as any).document;
    const controls = [
      ...doc.querySelectorAll('a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), summary, [tabindex="0"]'),
    ].filter((el: any) => el.getClientRects().length > 0 && !el.closest('[hidden]'));
    controls.forEach((el: any, i: number) => el.setAttribute('data-walk', String(i)));
    doc.activeElement?.blur();
    return controls.length;
  });
  const reached = new Set<string>();
  for (let press = 0; press < count + 10; press++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('data-walk') ?? null);
    if (at !== null) reached.add(at);
  }
  return page.evaluate(
    (seen) =>
      [...(globalThis as any).document.querySelectorAll('[data-walk]')]
        .filter((el: any) => !seen.includes(el.getAttribute('data-walk')))
        .map((el: any) => `${el.tagName} ${el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 30) ?? ''}`),
    [...reached],
  );
}

/** What overflows at the current width: the page itself, or a box that scrolls sideways. */
async function overflow(): Promise<string[]> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const width = doc.documentElement.clientWidth;
    const found: string[] = [];
    if (doc.documentElement.scrollWidth > width) found.push(`page ${doc.documentElement.scrollWidth} > ${width}`);
    for (const el of doc.querySelectorAll('main *, header *')) {
      if (el.scrollWidth > el.clientWidth + 1 && ['auto', 'scroll'].includes((globalThis as any).getComputedStyle(el).overflowX))
        found.push(`${el.tagName}.${el.className} scrolls sideways`);
      const box = el.getBoundingClientRect();
      // What a clipped ancestor hides (the cards' visually hidden header row) is not on screen.
      const clipped = el.closest('thead') && (globalThis as any).getComputedStyle(el.closest('thead')).clipPath !== 'none';
      if (box.width > 0 && box.right > width + 1 && !el.closest('svg') && !clipped)
        found.push(`${el.tagName}.${el.className} ends at ${Math.round(box.right)}`);
    }
    return found.slice(0, 5);
  });
}

describe('administration console (Chromium)', () => {
  it('serves the page with the security headers, no inline script and a favicon', async () => {
    const response = await fetch(`${runtime.url}/console/`);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    const html = await response.text();
    expect(html).not.toMatch(/<script>(?!<\/script>)|<script(?![^>]*src=)[^>]*>/);
    expect(html).toContain('href="favicon.svg"');
    const icon = await fetch(`${runtime.url}/console/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
  });

  it('signed out: no navigation, the sign-in text reads as text; a wrong key is refused with the reason, and the key stays out of storage', async () => {
    await page.goto(`${runtime.url}/console/`);
    await page.getByLabel('Admin key').waitFor();
    expect(await page.locator('nav').isVisible()).toBe(false);
    const intro = (await page.locator('main p').first().textContent())!;
    expect(intro).toContain('npm start');
    expect(intro).not.toContain('`');
    await page.getByLabel('Admin key').fill('not-the-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('refused');
    // The browser logs the refusal's 403 itself; that one is expected.
    expect(consoleErrors.splice(0).every((e) => e.includes('403') && e.includes('/admin/v1/apps?limit=1'))).toBe(true);
    expect(await page.locator('nav').isVisible()).toBe(false);
    await signIn();
    expect(await page.locator('nav').isVisible()).toBe(true);
    // In the page, where the browser's globals are (this file is typed for Node).
    const stored = await page.evaluate(() => {
      const w = globalThis as any;
      return JSON.stringify({ local: { ...w.localStorage }, session: { ...w.sessionStorage }, cookie: w.document.cookie });
    });
    expect(stored).not.toContain(ADMIN_KEY);
    // Signed out from another page: no navigation, nothing highlighted, and the next sign-in starts afresh.
    await nav('Dead letters');
    await page.getByRole('heading', { name: 'Dead letters' }).waitFor();
    await page.getByRole('navigation').getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin key').waitFor();
    expect(await page.locator('nav').isVisible()).toBe(false);
    expect(await page.locator('nav [aria-current]').count()).toBe(0);
    await page.getByLabel('Admin key').fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    expect(await page.locator('nav [aria-current="page"]').textContent()).toBe('Applications');
  });

  it('creates an application with everything the CLI takes, adds a destination with its coverage, tests it (the page follows), dead-letters and redrives one, a selection and all of a destination, rotates the secret', async () => {
    await signIn();
    await page.getByLabel('Name', { exact: true }).fill('Browser app');
    await page.getByLabel('bevq:read').check();
    await page.getByLabel('Allowed locations').fill('nyc-midtown, denver-union');
    await page.getByLabel('Rate limit per minute').fill('120');
    await page.getByLabel('Owner e-mail (optional)').fill('owner@example.com');
    await page.getByLabel('Expires (optional)').fill('2030-01-02T03:04');
    await page.getByRole('button', { name: 'Create' }).click();
    const clientSecret = (await page.getByRole('region', { name: 'Client secret' }).locator('code').textContent())!;
    expect(clientSecret).toMatch(/\S{20,}/);
    const appRow = page.getByRole('table', { name: 'Applications' }).getByRole('row').filter({ hasText: 'Browser app' });
    await expect.poll(() => appRow.textContent()).toContain('0 / 120');
    expect(await appRow.textContent()).toContain('nyc-midtown, denver-union');
    expect(await appRow.textContent()).toContain('owner@example.com');
    const clientId = (await appRow.locator('code').first().textContent())!;
    const app = (await runtime.store.apps.get(clientId))!;
    expect(app).toMatchObject({
      rateLimitPerMinute: 120,
      ownerEmail: 'owner@example.com',
      allowedLocationIds: ['nyc-midtown', 'denver-union'],
    });
    expect(Date.parse(app.expiresAt!)).toBe(new Date('2030-01-02T03:04').getTime());
    // Shown once: drawn again, the page no longer holds it.
    await nav('Applications');
    await page.getByRole('region', { name: 'Client secret' }).waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(clientSecret);
    // Searched by name: one match.
    await page.getByLabel('Search applications').fill('Browser');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Applications' }).getByRole('row').count()).toBe(2);

    await nav('Destinations');
    const option = (await page
      .getByLabel('Application', { exact: true })
      .locator('option', { hasText: 'Browser app' })
      .first()
      .textContent())!;
    await page.getByLabel('Application', { exact: true }).selectOption({ label: option });
    await page.getByLabel('Name', { exact: true }).fill('Bar hook');
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('Covered locations').fill('nyc-midtown');
    await page.getByRole('button', { name: 'Add' }).click();
    secret = (await page.getByRole('region', { name: 'Signing secret' }).locator('code').textContent())!;
    expectSigningSecret(secret);
    await expect.poll(() => page.getByRole('table', { name: 'Destinations' }).textContent()).toContain('Bar hook');
    // Of one application: only its destination.
    await page.getByLabel('Of one application (client id)').fill(clientId);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect
      .poll(() => page.getByRole('table', { name: 'Destinations' }).locator('tbody tr').allTextContents())
      .toEqual([expect.stringContaining('Bar hook')]);
    await page.getByRole('link', { name: 'Bar hook' }).click();
    await page.getByRole('heading', { name: 'Destination Bar hook' }).waitFor();
    expect(await page.locator('.destination-header').textContent()).toContain('Covers: nyc-midtown');
    expect(await page.locator('.destination-header').textContent()).toContain('NOT_TESTED');

    // Only the locations the destination and its application cover are offered.
    expect(await page.getByLabel('Location', { exact: true }).locator('option').allTextContents()).toEqual([
      expect.stringContaining('nyc-midtown'),
    ]);
    await page.getByLabel('Location', { exact: true }).selectOption('nyc-midtown');
    await page.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => page.locator('#test-result').textContent(), { timeout: PATIENCE_MS }).toContain('SUCCEEDED');
    expect(await page.locator('#test-result').textContent()).toContain('HEALTHY');
    expect(receiver.received.at(-1)?.verified).toBe(true);
    // The page follows without a reload: the header's health, the last deliveries, the chart and the history.
    const tested = (await page.locator('#test-result').textContent())!.match(/dlv_[0-9a-f]{32}/)![0];
    await expect.poll(() => page.locator('.destination-header').textContent()).toContain('HEALTHY');
    expect(await page.getByRole('table', { name: 'Last three deliveries' }).textContent()).toContain(tested);
    expect(await page.locator('figcaption').textContent()).toContain('SUCCEEDED');
    expect(await page.getByRole('table', { name: 'Delivery history' }).textContent()).toContain(tested);
    expect(await page.locator('.freshness').textContent()).toMatch(/updated/);

    // The receiver fails: the test is retried and the destination shows FAILING. Three more fail beside it.
    answer = 503;
    const others = await Promise.all(
      [0, 1, 2].map(async () => (await sendTest(runtime.deps, (await destinationId('Bar hook'))!, 'nyc-midtown')).deliveryId),
    );
    await page.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => page.locator('#test-result').textContent(), { timeout: PATIENCE_MS }).toContain('RETRY_PENDING');
    expect(await page.locator('#test-result').textContent()).toContain('FAILING');
    await expect.poll(() => page.locator('.destination-header').textContent()).toContain('FAILING');
    const failing = (await page.locator('#test-result').textContent())!.match(/dlv_[0-9a-f]{32}/)![0];
    await Promise.all([failing, ...others].map((id) => waitForStatus(runtime, id, ['DEAD_LETTER'])));
    // Left open, the page refreshes itself: the dead letter shows up in its history.
    await expect
      .poll(() => page.getByRole('table', { name: 'Delivery history' }).textContent(), { timeout: PATIENCE_MS })
      .toMatch(new RegExp(`${failing}DEAD_LETTER`));

    // Dead-lettered after the policy's attempts (on the runtime's time scale): each row names what on-call needs.
    answer = 200;
    await nav('Dead letters');
    const row = deadLetterRow(failing);
    await expect.poll(() => row.count(), { timeout: PATIENCE_MS }).toBe(1);
    const text = (await row.textContent())!;
    for (const shown of [
      'Bar hook',
      'hooks.example.test',
      clientId,
      'nyc-midtown',
      'customer_api.webhook.test',
      'attempts_exhausted',
      'http_503',
    ])
      expect(text).toContain(shown);
    expect(text).toMatch(/\(\d+ (s|min) ago\)/);
    expect(await row.getByRole('link', { name: 'Bar hook' }).count()).toBe(1);
    // Inspect opens in the row right below its own.
    await row.getByRole('button', { name: `Inspect ${failing}` }).click();
    const detail = row.locator('xpath=following-sibling::tr[1]');
    await expect.poll(() => detail.getAttribute('class')).toBe('detail');
    const detailText = (await detail.textContent())!;
    expect(detailText).toContain('attempts_exhausted');
    expect(detailText).toContain('customer_api.webhook.test');
    expect(detailText).not.toContain(secret);
    expect(await row.getByRole('button', { name: `Inspect ${failing}` }).getAttribute('aria-expanded')).toBe('true');
    // One, from its row.
    await row.getByRole('button', { name: `Redrive ${failing}` }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('1 queued again');
    expect(await waitForStatus(runtime, failing, ['SUCCEEDED', 'DEAD_LETTER'])).toMatchObject({ status: 'SUCCEEDED', redrives: 1 });
    await expect.poll(() => deadLetterRow(failing).count()).toBe(0);
    // A selection of two.
    await deadLetterRow(others[0]!).getByRole('checkbox').check();
    await deadLetterRow(others[1]!).getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Redrive selected (2)' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Redrive selected: 2 queued again');
    for (const id of others.slice(0, 2))
      expect(await waitForStatus(runtime, id, ['SUCCEEDED', 'DEAD_LETTER'])).toMatchObject({ status: 'SUCCEEDED', redrives: 1 });
    // All of one destination's.
    const dst = (await destinationId('Bar hook'))!;
    await page.getByLabel('Of one destination (id)').fill(dst);
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.getByRole('button', { name: `Redrive all of ${dst}` }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain(`Redrive all of ${dst}: 1 queued again.`);
    expect(await waitForStatus(runtime, others[2]!, ['SUCCEEDED', 'DEAD_LETTER'])).toMatchObject({ status: 'SUCCEEDED' });
    await expect.poll(() => page.locator('main').textContent()).toContain('nothing is dead-lettered');

    // The destination's history, filtered by status (it succeeded after its redrive), then by a period.
    await nav('Destinations');
    await page.getByRole('link', { name: 'Bar hook' }).click();
    const history = page.getByRole('table', { name: 'Delivery history' });
    await expect.poll(() => history.textContent()).toContain(failing);
    await page.getByLabel('Status').selectOption('DEAD_LETTER');
    await expect.poll(() => page.locator('main').textContent()).toContain('no delivery in this period');
    await page.getByLabel('Status').selectOption('SUCCEEDED');
    await expect.poll(() => history.textContent()).toContain(failing);
    await page.getByLabel('Since').selectOption({ label: 'the last hour' });
    await expect.poll(() => history.textContent()).toContain(failing);
    // The chart has axes, a legend and a table of the same numbers.
    expect(await page.locator('.legend').textContent()).toContain('succeeded (SUCCEEDED)');
    await page.getByText('The chart as a table').click();
    expect(await page.getByRole('table', { name: 'Deliveries per hour' }).textContent()).toMatch(/Total/);

    // A rotated secret signs the next delivery.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = (await page.getByRole('region', { name: 'Signing secret' }).locator('code').textContent())!;
    expectSigningSecret(rotated);
    expect(rotated).not.toBe(secret);
    secret = rotated;
    await page.getByLabel('Location', { exact: true }).selectOption('nyc-midtown');
    await page.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => page.locator('#test-result').textContent(), { timeout: PATIENCE_MS }).toContain('SUCCEEDED');
    expect(receiver.received.at(-1)?.verified).toBe(true);

    // The menus page shows the demo group's published menu.
    await nav('Menus');
    await expect.poll(() => page.getByRole('table', { name: 'Menus by location' }).textContent()).toContain('nyc-midtown');

    // An edit with a blank URL keeps the URL; the coverage is editable (blank: all the application covers).
    await nav('Destinations');
    await page.getByRole('link', { name: 'Bar hook' }).click();
    await page.getByLabel('New name').fill('Renamed hook');
    await page.getByLabel('Covered locations').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Destination Renamed hook' }).waitFor();
    expect(await page.locator('.destination-header').textContent()).toContain('hooks.example.test');
    expect(await page.locator('.destination-header').textContent()).toContain('Covers: every location the application covers');
    // Disabled, the header says so at once.
    await page.getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => page.locator('.destination-header').textContent()).toContain('DISABLED');
    await page.getByRole('button', { name: 'Enable' }).click();
    await expect.poll(() => page.locator('.destination-header').textContent()).not.toContain('DISABLED');

    // Every change is on the audit page, and the filter narrows it to one destination's.
    await nav('Audit trail');
    const audit = (await page.getByRole('table', { name: 'Changes, newest first' }).textContent())!;
    for (const operation of [
      'createApp',
      'addDestination',
      'sendTest',
      'redriveDeadLetter',
      'redriveAllDeadLetters',
      'rotateSecret',
      'editDestination',
    ])
      expect(audit).toContain(operation);
    // With its parameters: the destination's host, never its secret.
    expect(audit).toContain('urlHost: hooks.example.test');
    expect(audit).not.toContain(secret);
    const id = (await destinationId('Renamed hook'))!;
    await page.getByLabel('Destination id').fill(id);
    await page.getByRole('button', { name: 'Filter' }).click();
    // A loaded machine may take more than the poll's default second to answer the filtered page.
    await expect
      .poll(() => page.getByRole('table', { name: 'Changes, newest first' }).textContent(), { timeout: PATIENCE_MS })
      .not.toContain('createApp');
    expect(await page.getByRole('table', { name: 'Changes, newest first' }).textContent()).toContain('editDestination');
  });

  it("rotates an application's client secret with the overlap and the end of its tokens asked for, and lists legacy credentials with their last use", async () => {
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
    // Accepted: the replaced secret's tokens end with it, when its overlap ends.
    expect(asked[1]).toMatch(/End the tokens the replaced secret issued/);
    expect(await page.getByText('Tokens of the replaced secrets end at').count()).toBe(1);
    const token = await fetch(`${runtime.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: created.app.clientId, client_secret: rotated }),
    });
    expect(token.status).toBe(200);
    const stored = (await runtime.store.apps.get(created.app.clientId))!;
    expect(Date.parse(stored.previousSecretExpiresAt!) - Date.parse(stored.secretRotatedAt!)).toBe(6 * 3_600_000);
    expect(stored.pendingTokensEnd).toEqual({ below: 2, at: stored.previousSecretExpiresAt });

    const legacyRow = page
      .getByRole('table', { name: 'Legacy bearer credentials' })
      .getByRole('row')
      .filter({ hasText: legacy.app.clientId });
    expect(await legacyRow.textContent()).toContain('never');
    expect(await legacyRow.textContent()).toContain(legacy.app.tokenPrefix);
    expect(await page.content()).not.toContain(legacy.legacyCredential);
  });

  it(`shows each application's destinations against the limit of ${DESTINATIONS_PER_APPLICATION}, and refuses one more with the reason`, async () => {
    const { app } = await createApp(runtime.store, { groupId: 'demo-group', name: 'Full', scopes: ['bevq:read'] }, Date.now());
    for (let i = 0; i < DESTINATIONS_PER_APPLICATION; i++) {
      await addDestination(runtime.deps, { clientId: app.clientId, name: `Full hook ${i}`, url: receiver.url });
    }
    await signIn();
    await page.getByLabel('Search applications').fill(app.clientId);
    await page.getByRole('button', { name: 'Search' }).click();
    const row = page.getByRole('row').filter({ hasText: app.clientId });
    await expect
      .poll(() => row.locator('td').allTextContents())
      .toContain(`${DESTINATIONS_PER_APPLICATION} / ${DESTINATIONS_PER_APPLICATION}`);

    await nav('Destinations');
    await page.getByLabel('Application', { exact: true }).selectOption(app.clientId);
    await page.getByLabel('Name', { exact: true }).fill('One too many');
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe(
        `application ${app.clientId} has ${DESTINATIONS_PER_APPLICATION} destinations, the limit per application: remove one before adding another`,
      );
    expect(
      (await runtime.store.destinations.page({ scope: { groupId: 'demo-group', clientId: app.clientId }, limit: 100 })).destinations,
    ).toHaveLength(DESTINATIONS_PER_APPLICATION);
    // The browser logs the refusal's 409 itself; that one is expected.
    const refusal = consoleErrors.findIndex((e) => e.includes('409') && e.includes('/admin/v1/destinations'));
    expect(refusal).toBeGreaterThanOrEqual(0);
    consoleErrors.splice(refusal, 1);
  });

  it('revokes an application and removes a destination, each only once its confirmation is accepted', async () => {
    const { app } = await createApp(runtime.store, { groupId: 'demo-group', name: 'Leaving', scopes: ['bevq:read'] }, Date.now());
    const { destination } = await addDestination(runtime.deps, { clientId: app.clientId, name: 'Leaving hook', url: receiver.url });
    page.removeAllListeners('dialog');
    const asked: string[] = [];
    let accept = false;
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    });
    await signIn();

    await nav('Destinations');
    await page.getByLabel('Of one application (client id)').fill(app.clientId);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'Leaving hook' }).click();
    await page.getByRole('heading', { name: 'Destination Leaving hook' }).waitFor();
    // Dismissed: nothing changes.
    await page.getByRole('button', { name: 'Remove' }).click();
    expect(asked.at(-1)).toContain('Remove Leaving hook?');
    expect(await runtime.store.destinations.get(destination.destinationId)).not.toBeNull();
    accept = true;
    await page.getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => runtime.store.destinations.get(destination.destinationId)).toBeNull();
    // A removed destination has no page: the console is back on the list.
    await page.getByRole('heading', { name: 'Destinations', exact: true }).waitFor();

    await nav('Applications');
    await page.getByLabel('Search applications').fill(app.clientId);
    await page.getByRole('button', { name: 'Search' }).click();
    const row = page.getByRole('row').filter({ hasText: app.clientId });
    accept = false;
    await row.getByRole('button', { name: `Revoke ${app.clientId}` }).click();
    expect(asked.at(-1)).toContain(`Revoke ${app.clientId}?`);
    expect((await runtime.store.apps.get(app.clientId))!.status).toBe('active');
    accept = true;
    await row.getByRole('button', { name: `Revoke ${app.clientId}` }).click();
    await expect.poll(async () => (await runtime.store.apps.get(app.clientId))!.status).toBe('revoked');
    // The page follows: the row says revoked and offers no second revoke.
    await expect.poll(() => row.textContent()).toContain('revoked');
    expect(await row.getByRole('button', { name: `Revoke ${app.clientId}` }).count()).toBe(0);
  });

  it('rotates and revokes access-token key versions, and publishes a rebuilt menu from its file', async () => {
    await signIn();
    // Finds an application by its whole id.
    const { app } = await createApp(runtime.store, { groupId: 'demo-group', name: 'Found by id', scopes: ['locations:read'] }, Date.now());
    await page.getByLabel('Search applications').fill(app.clientId);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect
      .poll(() => page.getByRole('table', { name: 'Applications' }).locator('tbody tr').allTextContents())
      .toEqual([expect.stringContaining('Found by id')]);
    // Of one group: the API's own filter, beside the search.
    await page.getByLabel('Search applications').fill('');
    await page.getByLabel('Of one group (id)').fill('demo-group');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Applications' }).locator('tbody tr').count()).toBeGreaterThan(1);

    await nav('Token keys');
    const keys = page.getByRole('table', { name: 'Access-token key versions' });
    // Rotated: a new version (it signs once its time comes); revoked, a version is refused at once.
    await page.getByRole('button', { name: 'Rotate key' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Access-token key rotated.');
    const version = (await runtime.store.tokenKeys.list(Date.now())).find((v) => v.state !== 'revoked')!;
    await page.getByRole('button', { name: `Revoke key version ${version.version}` }).click();
    await expect.poll(() => keys.getByRole('row').filter({ hasText: 'revoked' }).count()).toBeGreaterThanOrEqual(1);
    expect((await runtime.store.tokenKeys.list(Date.now())).find((v) => v.version === version.version)?.state).toBe('revoked');
    expect(await page.content()).not.toMatch(/"key"|-----BEGIN/);

    await nav('Menus');
    const menu = sampleMenu({ price: 7.25 });
    await page.getByLabel('Location id').fill('denver-union');
    await page
      .getByLabel('Menu file (JSON)')
      .setInputFiles({ name: 'menu.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(menu)) });
    await page.getByRole('button', { name: 'Publish' }).click();
    await expect.poll(() => page.locator('main').textContent()).toMatch(/Published revision \S+|Unchanged: revision/);
    const row = page.getByRole('table', { name: 'Menus by location' }).getByRole('row').filter({ hasText: 'denver-union' });
    await expect.poll(() => row.textContent()).not.toContain('not published');
  });

  it('a dead-letter page left open shows a new dead letter without a reload, and says how fresh it is', async () => {
    await signIn();
    await nav('Dead letters');
    await page.getByRole('heading', { name: 'Dead letters' }).waitFor();
    const { app } = await createApp(runtime.store, { groupId: 'demo-group', name: 'Late app', scopes: ['bevq:read'] }, Date.now());
    const at = new Date().toISOString();
    const delivery = {
      deliveryId: `dlv_${'f'.repeat(31)}1`,
      groupId: 'demo-group',
      clientId: app.clientId,
      locationId: 'nyc-midtown',
      status: 'DEAD_LETTER',
      eventId: 'evt_late',
      eventType: 'customer_api.webhook.test',
      destinationId: `dst_${'f'.repeat(20)}`,
      destinationHost: 'hooks.example.test',
      attempts: 5,
      timeline: [{ kind: 'attempt', attempt: 5, at, status: 'DEAD_LETTER', code: 'timeout', ms: null, next: null }],
      createdAt: at,
      updatedAt: at,
    } as unknown as Delivery;
    await runtime.store.deliveries.markDeadLetter(markerOf(delivery, 'attempts_exhausted'));
    // The page's first refresh comes within seconds; a removed destination is named as such.
    await expect.poll(() => deadLetterRow(delivery.deliveryId).count(), { timeout: PATIENCE_MS }).toBe(1);
    expect(await deadLetterRow(delivery.deliveryId).textContent()).toContain(`removed (${delivery.destinationId})`);
    expect(await page.locator('.freshness').textContent()).toMatch(/updated (just now|\d+ s ago)/);
    await runtime.store.deliveries.unmarkDeadLetter(delivery.deliveryId);
  });

  it('every page: Tab alone reaches every control, and at 375 and 320 px nothing scrolls sideways and each list row shows its id, status and time', async () => {
    await signIn();
    const unreached: Record<string, string[]> = {};
    await everyPage(async (name) => {
      const missed = await unreachedByTab();
      if (missed.length) unreached[name] = missed;
    });
    expect(unreached).toEqual({});
    for (const width of [375, 320]) {
      await page.setViewportSize({ width, height: 740 });
      const overflows: Record<string, string[]> = {};
      await everyPage(async (name) => {
        const found = await overflow();
        if (found.length) overflows[name] = found;
      });
      expect(overflows, `at ${width} px`).toEqual({});
      // Each list's rows are cards there: every value (id, status, time among them) on screen, named.
      await nav('Applications');
      await page.getByRole('table', { name: 'Applications' }).waitFor();
      const card = page.getByRole('table', { name: 'Applications' }).locator('tbody tr').first();
      expect(await card.evaluate((tr) => (globalThis as any).getComputedStyle(tr).display)).toBe('block');
      for (const label of ['Client id', 'Status', 'Expires']) {
        const box = (await card.locator(`td[data-label="${label}"]`).boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(width);
      }
    }
  });

  it('works by keyboard alone at 320 px from the sign-in on', async () => {
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
    // Every control has a label.
    const unlabelled = await page.evaluate(
      () =>
        [...(globalThis as any).document.querySelectorAll('input, select')].filter(
          (c: any) => !c.labels?.length && !c.getAttribute('aria-label'),
        ).length,
    );
    expect(unlabelled).toBe(0);
  });

  it('axe-core finds no serious or critical violation on any page, signed out and signed in, at 1280 and 375 px', async () => {
    const found: Record<string, unknown[]> = {};
    const report: string[] = [];
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${runtime.url}/console/`);
      await page.getByLabel('Admin key').waitFor();
      const scan = async (name: string) => {
        const violations = await axeViolations();
        report.push(`${name} @${width}: ${violations.length} serious/critical`);
        if (violations.length) found[`${name} @${width}`] = violations;
      };
      await scan('Sign in');
      await page.getByLabel('Admin key').fill(ADMIN_KEY);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Applications' }).waitFor();
      await everyPage(async (name) => {
        // The chart's table too, opened.
        if (name === 'A destination') await page.getByText('The chart as a table').click();
        await scan(name);
      });
    }
    console.log(`axe-core: ${report.join('; ')}`);
    expect(found).toEqual({});
  });

  describe('links an on-call person can paste, and the pages they land on', () => {
    /** An application with a destination, a delivery that succeeded and a dead letter: each item with an address. */
    let seeded: { clientId: string; destinationId: string; deliveryId: string; deadLetterId: string };
    beforeAll(async () => {
      const { app } = await createApp(runtime.store, { groupId: 'demo-group', name: 'Linked app', scopes: ['bevq:read'] }, Date.now());
      const added = await addDestination(runtime.deps, { clientId: app.clientId, name: 'Linked hook', url: receiver.url });
      secret = added.signingSecret;
      const { deliveryId } = await sendTest(runtime.deps, added.destination.destinationId, 'nyc-midtown');
      const sent = await waitForStatus(runtime, deliveryId, ['SUCCEEDED', 'DEAD_LETTER']);
      const at = new Date().toISOString();
      const dead = {
        ...sent,
        deliveryId: `dlv_${'e'.repeat(31)}1`,
        status: 'DEAD_LETTER',
        deadLetterReason: 'attempts_exhausted',
        timeline: [...sent.timeline, { kind: 'attempt', attempt: 5, at, status: 'DEAD_LETTER', code: 'timeout', ms: null, next: null }],
        createdAt: at,
        updatedAt: at,
      };
      await runtime.store.deliveries.create(dead as Delivery);
      await runtime.store.deliveries.markDeadLetter(markerOf(dead as Delivery, 'attempts_exhausted'));
      seeded = { clientId: app.clientId, destinationId: added.destination.destinationId, deliveryId, deadLetterId: dead.deliveryId };
    });
    const hash = () => new URL(page.url()).hash;
    const signInAgain = async () => {
      await page.getByLabel('Admin key').fill(ADMIN_KEY);
      await page.getByRole('button', { name: 'Sign in' }).click();
    };

    it('names are real links to their own address; back and forward walk the pages; a reload asks for the key and keeps the page', async () => {
      await signIn();
      expect(hash()).toBe('#/applications');
      await nav('Destinations');
      const link = page.getByRole('table', { name: 'Destinations' }).getByRole('link', { name: 'Linked hook' });
      expect(await link.getAttribute('href')).toBe(`#/destinations/${seeded.destinationId}`);
      await link.click();
      await page.getByRole('heading', { name: 'Destination Linked hook' }).waitFor();
      expect(hash()).toBe(`#/destinations/${seeded.destinationId}`);
      await page.goBack();
      await page.getByRole('heading', { name: 'Destinations', exact: true }).waitFor();
      expect(hash()).toBe('#/destinations');
      expect(await page.locator('nav [aria-current="page"]').textContent()).toBe('Destinations');
      await page.goBack();
      await page.getByRole('heading', { name: 'Applications', exact: true }).waitFor();
      await page.goForward();
      await page.goForward();
      await page.getByRole('heading', { name: 'Destination Linked hook' }).waitFor();
      await page.reload();
      await page.getByLabel('Admin key').waitFor();
      expect(hash()).toBe(`#/destinations/${seeded.destinationId}`);
      await signInAgain();
      await page.getByRole('heading', { name: 'Destination Linked hook' }).waitFor();
      expect(hash()).toBe(`#/destinations/${seeded.destinationId}`);
    });

    it('every page and item opened by its address in a fresh page lands there after the sign-in', async () => {
      const { clientId, destinationId, deliveryId, deadLetterId } = seeded;
      /** A fresh load of the console at an address, signed out; then the sign-in. */
      const open = async (address: string) => {
        await page.goto('about:blank');
        await page.goto(`${runtime.url}/console/${address}`);
        await signInAgain();
      };
      const paths = ['applications', 'destinations', 'dead-letters', 'deliveries', 'menus', 'audit', 'owner-mail', 'token-keys'];
      for (const [i, name] of PAGES.entries()) {
        await open(`#/${paths[i]}`);
        await page.getByRole('heading', { name, exact: true }).waitFor();
        expect(hash()).toBe(`#/${paths[i]}`);
      }
      await open(`#/applications/${clientId}`);
      await page.getByRole('heading', { name: 'Applications', exact: true }).waitFor();
      expect(await page.getByLabel('Search applications').inputValue()).toBe(clientId);
      await expect.poll(() => page.getByRole('table', { name: 'Applications' }).locator('tbody tr').count()).toBe(1);
      await open(`#/dead-letters/${deadLetterId}`);
      await page.getByRole('region', { name: `Dead letter ${deadLetterId}` }).waitFor();
      // Its own rows only, not those of the timeline in its detail.
      expect(await page.getByRole('table', { name: 'Dead letters' }).locator(':scope > tbody > tr:not(.detail)').count()).toBe(1);
      await open(`#/destinations/${destinationId}/deliveries/${deliveryId}`);
      await page.getByRole('heading', { name: 'Destination Linked hook' }).waitFor();
      // The delivery's row is marked, in the last three and in the history.
      const marked = page.locator(`a[aria-current="true"][href="#/destinations/${destinationId}/deliveries/${deliveryId}"]`);
      await expect.poll(() => marked.count()).toBe(2);
      // An address that names nothing becomes the first page's.
      await open('#/nowhere/at-all');
      await page.getByRole('heading', { name: 'Applications', exact: true }).waitFor();
      expect(hash()).toBe('#/applications');
    });

    it("a delivery's story has its own address, linked from its destination's rows and its dead letter, and is found by its event id", async () => {
      const { destinationId, deadLetterId } = seeded;
      // Four retryable failures, then a success, as the deliverer records them (test/integration/webhook-timeline.test.ts).
      const destination = (await runtime.store.destinations.get(destinationId))!;
      const t = Date.now() - 600_000;
      const event = { eventId: `evt_${'7'.repeat(32)}`, eventType: 'bevq.menu.updated' as const, occurredAt: new Date(t).toISOString() };
      let d = newDelivery({ ...event, groupId: 'demo-group', locationId: 'nyc-midtown', revision: 'r1' }, destination, t);
      for (let i = 0; i < 4; i++) d = state.retry(state.start(d, 'm', 1, t + i * 60_000), 'http_503', 30, t + i * 60_000 + 120);
      d = state.succeed(state.start(d, 'm', 1, t + 240_000), 'http_204', t + 240_080);
      await runtime.store.deliveries.create(d);

      await signIn();
      await page.goto(`${runtime.url}/console/#/destinations/${destinationId}`);
      const link = page
        .getByRole('table', { name: 'Delivery history' })
        .getByRole('link', { name: `SUCCEEDED: timeline of ${d.deliveryId}` });
      expect(await link.getAttribute('href')).toBe(`#/deliveries/${d.deliveryId}`);
      await link.click();
      await page.getByRole('heading', { name: `Delivery ${d.deliveryId}` }).waitFor();
      expect(hash()).toBe(`#/deliveries/${d.deliveryId}`);
      const rows = page.getByRole('table', { name: 'Timeline' }).locator('tbody tr');
      await expect.poll(() => rows.count()).toBe(5);
      expect(await rows.nth(0).innerText()).toMatch(/^1\s.*attempt\s+http_503\s+RETRY_PENDING\s+120 ms\s/s);
      expect(await rows.nth(0).locator('td[data-label="Next attempt"] time').getAttribute('datetime')).toBe(d.timeline[0]!.next);
      expect(await rows.nth(4).innerText()).toMatch(/^5\s.*attempt\s+http_204\s+SUCCEEDED\s+80 ms\s+—$/s);

      // Its event's deliveries, one per destination, each linking back to its story.
      await page.getByRole('link', { name: event.eventId }).click();
      await page.getByRole('heading', { name: `Event ${event.eventId}` }).waitFor();
      const ofEvent = page.getByRole('table', { name: `Deliveries of ${event.eventId}` });
      expect(await ofEvent.getByRole('link', { name: d.deliveryId }).getAttribute('href')).toBe(`#/deliveries/${d.deliveryId}`);

      // A dead letter's row links to its story too.
      await nav('Dead letters');
      const timelineLink = deadLetterRow(deadLetterId).getByRole('link', { name: `Timeline of ${deadLetterId}` });
      expect(await timelineLink.getAttribute('href')).toBe(`#/deliveries/${deadLetterId}`);

      // The lookup: by id; an unknown one says so in the API's words.
      await nav('Deliveries');
      await page.getByLabel('Delivery or event id').fill(d.deliveryId);
      await page.getByRole('button', { name: 'Find' }).click();
      await page.getByRole('heading', { name: `Delivery ${d.deliveryId}` }).waitFor();
      const unknown = `dlv_${'0'.repeat(32)}`;
      await page.getByLabel('Delivery or event id').fill(unknown);
      await page.getByRole('button', { name: 'Find' }).click();
      await expect.poll(() => page.locator('#error').textContent()).toContain(`delivery ${unknown} does not exist`);
      // The browser logs the refused request; it was meant.
      const refusal = consoleErrors.findIndex((e) => e.includes('404') && e.includes(`/admin/v1/deliveries/${unknown}`));
      expect(refusal).toBeGreaterThanOrEqual(0);
      consoleErrors.splice(refusal, 1);
    });

    it("with a user pool's sign-in: a deep link and a reload come back to their page through the hosted UI's session, with PKCE, nothing stored", async () => {
      // The hosted UI stood in for on this origin (the page's connect-src is 'self'): it answers at once, as it does while its session lasts.
      const authDomain = `${runtime.url}/hosted-ui`;
      const redirectUri = `${runtime.url}/console/`;
      const authorized: string[] = [];
      const challenges = new Map<string, string>();
      await page.route(`${runtime.url}/console/config.json`, (route) =>
        route.fulfill({ json: { apiBase: '/admin/v1', signIn: 'cognito', authDomain, clientId: 'console-client', redirectUri } }),
      );
      await page.route(
        (url) => url.pathname === '/hosted-ui/oauth2/authorize',
        (route) => {
          const query = new URL(route.request().url()).searchParams;
          const code = `code-${authorized.push(query.get('state')!)}`;
          challenges.set(code, query.get('code_challenge')!);
          return route.fulfill({ status: 302, headers: { location: `${redirectUri}?code=${code}&state=${query.get('state')}` } });
        },
      );
      await page.route(
        (url) => url.pathname === '/hosted-ui/oauth2/token',
        async (route) => {
          const form = new URLSearchParams(route.request().postData() ?? '');
          const challenge = createHash('sha256').update(form.get('code_verifier')!).digest('base64url');
          if (challenges.get(form.get('code')!) !== challenge) return route.fulfill({ status: 400, json: { error: 'invalid_grant' } });
          return route.fulfill({ json: { access_token: ADMIN_KEY, token_type: 'Bearer' } });
        },
      );
      const address = `#/destinations/${seeded.destinationId}`;
      await page.goto(`${runtime.url}/console/${address}`);
      await page.getByRole('heading', { name: 'Destination Linked hook' }).waitFor();
      expect(new URL(page.url()).search).toBe('');
      expect(hash()).toBe(address);
      await page.reload();
      await page.getByRole('heading', { name: 'Destination Linked hook' }).waitFor();
      expect(hash()).toBe(address);
      expect(authorized).toHaveLength(2);
      const stored = await page.evaluate(() =>
        JSON.stringify({ ...(globalThis as any).sessionStorage, ...(globalThis as any).localStorage }),
      );
      expect(stored).toBe('{}');
    });

    it('the Dead letters page fits a 1280 px window', async () => {
      await signIn();
      await nav('Dead letters');
      await page.getByRole('table', { name: 'Dead letters' }).waitFor();
      const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(1280);
    });

    it("Audit: an empty page the trail's cursor goes on from says so; the last page's Next page is disabled", async () => {
      await signIn();
      await nav('Audit trail');
      await page.getByLabel('Application id').fill('app_nobody');
      const filtered = page.waitForResponse((r) => r.url().includes('/audit?') && r.url().includes('clientId=app_nobody'));
      await page.getByRole('button', { name: 'Filter' }).click();
      await filtered;
      const note = page.getByRole('note', { name: 'Changes, newest first' });
      await expect.poll(() => note.textContent()).toContain('no changes on this page; older ones may follow.');
      const next = page.getByRole('button', { name: 'Next page' });
      // The trail reads a bounded stretch of days a call: a few pages reach its end.
      for (let pages = 1; await next.isEnabled(); pages++) {
        expect(pages).toBeLessThan(10);
        await next.click();
        // Each page reads up to a hundred days' partitions: seconds on a busy machine.
        await expect.poll(() => page.locator('.paging-position').textContent(), { timeout: PATIENCE_MS }).toContain(`Page ${pages + 1}`);
      }
      expect(await note.textContent()).toContain('no change recorded.');
    });

    it('the create forms sit below the lists', async () => {
      await signIn();
      const below = async (list: string, form: string) => {
        const [table, fieldset] = [page.getByRole('table', { name: list }), page.getByRole('group', { name: form })];
        await table.waitFor();
        return (await fieldset.boundingBox())!.y > (await table.boundingBox())!.y + (await table.boundingBox())!.height;
      };
      expect(await below('Applications', 'Create an application')).toBe(true);
      await nav('Destinations');
      expect(await below('Destinations', 'Add a destination')).toBe(true);
    });
  });

  it('no page logged a console error', () => {
    expect(consoleErrors).toEqual([]);
  });
});

async function destinationId(name: string): Promise<string | undefined> {
  return (await runtime.store.destinations.page({ limit: 1000 })).destinations.find((d) => d.name === name)?.destinationId;
}

describe("the console at a platform's size (Chromium)", { timeout: PATIENCE_MS }, () => {
  const GROUP = 'demo-group';
  const SIZE = 1000;
  it(`with ${SIZE} destinations and ${SIZE} dead letters, each list page is one admin call and at most a page of rows; search finds one by name and by id`, async () => {
    const at = new Date().toISOString();
    const { app } = await createApp(runtime.store, { groupId: GROUP, name: 'Platform app', scopes: ['bevq:read'] }, Date.now());
    const destinations = Array.from({ length: SIZE }, (_, i) =>
      storedDestination(
        {
          destinationId: `dst_${i.toString(16).padStart(20, '0')}`,
          clientId: app.clientId,
          groupId: GROUP,
          url: 'https://hooks.example.test/h',
          name: `Scale hook ${String(i).padStart(4, '0')}`,
        },
        at,
      ),
    );
    for (let i = 0; i < SIZE; i += 50)
      await Promise.all(destinations.slice(i, i + 50).map((d) => runtime.store.destinations.put(d, { mustExist: false })));
    const markers = destinations.map((d, i) => {
      const delivery = {
        deliveryId: `dlv_${i.toString(16).padStart(32, '0')}`,
        groupId: GROUP,
        clientId: app.clientId,
        locationId: 'nyc-midtown',
        status: 'DEAD_LETTER',
        eventId: `evt_${i}`,
        eventType: 'customer_api.menu.updated',
        destinationId: d.destinationId,
        destinationHost: 'hooks.example.test',
        attempts: 5,
        timeline: [{ kind: 'attempt', attempt: 5, at, status: 'DEAD_LETTER', code: 'http_503', ms: 80, next: null }],
        createdAt: at,
        updatedAt: at,
      } as unknown as Delivery;
      return markerOf(delivery, 'attempts_exhausted');
    });
    for (let i = 0; i < SIZE; i += 50) await Promise.all(markers.slice(i, i + 50).map((m) => runtime.store.deliveries.markDeadLetter(m)));

    await signIn();
    const calls: string[] = [];
    page.on('request', (request) => void calls.push(new URL(request.url()).pathname + new URL(request.url()).search));
    for (const [name, list, caption] of [
      ['Destinations', '/admin/v1/destinations?', 'Destinations'],
      ['Dead letters', '/admin/v1/dead-letters?', 'Dead letters'],
    ] as const) {
      calls.length = 0;
      const began = Date.now();
      await nav(name);
      await page.getByRole('table', { name: caption }).waitFor();
      console.log(`first page of ${name} at ${SIZE}: ${Date.now() - began} ms`);
      expect(calls.filter((c) => c.startsWith(list))).toHaveLength(1);
      expect(await page.getByRole('table', { name: caption }).locator('tbody tr').count()).toBeLessThanOrEqual(50);
      // The next page: one more call, at most a page of rows.
      calls.length = 0;
      await page.getByRole('button', { name: 'Next page' }).click();
      await expect.poll(() => page.locator('.paging-position').textContent()).toContain('Page 2');
      expect(calls.filter((c) => c.startsWith(list))).toHaveLength(1);
      expect(await page.getByRole('table', { name: caption }).locator('tbody tr').count()).toBeLessThanOrEqual(50);
      await page.getByRole('button', { name: 'Previous page' }).click();
      await expect.poll(() => page.locator('.paging-position').textContent()).toContain('Page 1');
    }
    // Searched: by part of a name, and by a whole id.
    await nav('Destinations');
    await page.getByLabel('Search destinations').fill('Scale hook 0777');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Destinations' }).locator('tbody tr').count()).toBe(1);
    await page.getByLabel('Search destinations').fill(destinations[999]!.destinationId);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Destinations' }).textContent()).toContain('Scale hook 0999');
    await nav('Dead letters');
    await page.getByLabel('Search dead letters').fill('Scale hook 0003');
    await page.getByRole('button', { name: 'Search' }).click();
    // A search by name can take seconds on a busy machine.
    await expect
      .poll(() => page.getByRole('table', { name: 'Dead letters' }).locator('tbody tr').count(), { timeout: PATIENCE_MS })
      .toBe(1);
    expect(await page.getByRole('table', { name: 'Dead letters' }).textContent()).toContain(markers[3]!.deliveryId);
  });
});
