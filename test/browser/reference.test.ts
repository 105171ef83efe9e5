import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openApiDocument } from '#lib/openapi';
import { BEVQ_ROUTES } from '#lambdas/bevq/routes';
import { REFERENCE_ROOT } from '#lib/reference-build';
import type { LocalRuntime } from '#local/runtime';
import { startTestRuntime } from '../support/runtime.js';
import { launchChromium } from '../support/browser.js';
import { PATIENCE_MS } from '../support/eventually.js';

/**
 * The API reference in a real browser (Debian's Chromium, playwright-core)
 * under its own Content-Security-Policy: it renders the operations, the
 * webhooks and the intro's tables with nothing but the runtime's origin.
 */
const SHOTS = 'test-results/reference';
let runtime: LocalRuntime;
let browser: Browser;

beforeAll(async () => {
  runtime = await startTestRuntime();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await runtime?.stop();
});

describe('API reference (Chromium)', () => {
  it('shows the bevq menu operation, the webhooks and the error codes, loading nothing from another origin and logging no error', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const origins = new Set<string>();
    const problems: string[] = [];
    page.on('request', (request) => origins.add(new URL(request.url()).origin));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    try {
      await page.goto(`${runtime.url}${REFERENCE_ROOT}`);
      await page.getByRole('heading', { name: 'Customer API', exact: true }).waitFor({ timeout: PATIENCE_MS });

      // The intro's errors table, every code the functions answer with.
      const errors = page.getByRole('table').filter({ hasText: 'rate_limited' });
      await expect.poll(() => errors.count()).toBe(1);
      expect(await errors.textContent()).toContain('module_not_enabled');
      expect(await page.getByRole('table').filter({ hasText: 'RateLimit-Remaining' }).count()).toBe(1);

      // The menu route, reached from the sidebar as a reader would: its tag, then the operation.
      const menu = BEVQ_ROUTES.find((r) => r.operation === 'bevqMenu')!.summary;
      await page.getByText('bevq', { exact: true }).first().click();
      await page.getByText(menu, { exact: true }).first().click();
      await page.getByRole('heading', { name: menu }).first().waitFor({ timeout: PATIENCE_MS });

      // The webhook a receiver implements, with its payload.
      const hooks = openApiDocument(runtime.url).webhooks as Record<string, { post: { summary: string } }>;
      const updated = hooks['bevq.menu.updated']!.post.summary;
      await page.getByText('Webhooks', { exact: true }).first().click();
      await page.getByText(updated, { exact: true }).first().click();
      await page.getByRole('heading', { name: updated }).first().waitFor({ timeout: PATIENCE_MS });

      expect([...origins]).toEqual([new URL(runtime.url).origin]);
      expect(problems).toEqual([]);
    } catch (error) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: `${SHOTS}/reference.png`, fullPage: false });
      throw error;
    } finally {
      await page.close();
    }
  });
});
