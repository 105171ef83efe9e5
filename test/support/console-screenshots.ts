import { mkdirSync } from 'node:fs';
import { addDestination, sendTest } from '#lambdas/webhooks/destination-operations';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { createApp } from '#lambdas/admin/apps';
import { startLocalRuntime } from '#local/runtime';
import { launchChromium } from './browser.js';

/**
 * Screenshots of each console page for docs/console.md (docs/console/): a runtime
 * with the demo data, a destination tested once against a real receiver,
 * and one dead letter. `npm run console:screenshots`.
 */
const OUT = 'docs/console';
const KEY = 'screenshots-admin-key-0123456789';
const WIDTHS = [1280, 375] as const;

const runtime = await startLocalRuntime({
  port: 0,
  dataDir: null,
  seed: true,
  logLevel: 'SILENT',
  adminKey: KEY,
  resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
  config: { webhookAllowLoopback: true, webhookTimeScale: 0.01 },
});
let secret = '';
let answer = 200;
const receiver = await startReceiver({ secret: () => secret, behave: () => answer });
const browser = await launchChromium();
try {
  const { app } = await createApp(
    runtime.store,
    { groupId: 'demo-group', name: 'Bar group backend', scopes: ['bevq:read', 'locations:read'] },
    Date.now(),
  );
  const clientId = app.clientId;
  const added = await addDestination(runtime.deps, { clientId, name: 'Bar hook', url: receiver.url, locationIds: ['nyc-midtown'] });
  secret = added.signingSecret;
  const id = added.destination.destinationId;
  await waitForStatus(runtime, (await sendTest(runtime.deps, id, 'nyc-midtown')).deliveryId, ['SUCCEEDED']);
  answer = 503;
  await waitForStatus(runtime, (await sendTest(runtime.deps, id, 'nyc-midtown')).deliveryId, ['DEAD_LETTER']);

  mkdirSync(OUT, { recursive: true });
  // Every page at a laptop's width and a phone's; each file is <page>-<width>.png.
  for (const width of WIDTHS) {
    const page = await browser.newPage({ viewport: { width, height: width > 600 ? 800 : 740 } });
    const shot = (name: string) => page.screenshot({ path: `${OUT}/${name}-${width}.png`, fullPage: true });
    await page.goto(`${runtime.url}/console/`);
    await page.getByLabel('Admin key').waitFor();
    await shot('sign-in');
    await page.getByLabel('Admin key').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    await shot('applications');
    for (const [nav, name] of [
      ['Destinations', 'destinations'],
      ['Dead letters', 'dead-letters'],
      ['Menus', 'menus'],
      ['Audit trail', 'audit'],
      ['Owner mail', 'owner-mail'],
      ['Token keys', 'token-keys'],
    ] as const) {
      await page.getByRole('navigation').getByRole('link', { name: nav }).click();
      await page.getByRole('heading', { name: nav, exact: true }).waitFor();
      await shot(name);
    }
    await page.getByRole('navigation').getByRole('link', { name: 'Dead letters' }).click();
    await page
      .getByRole('button', { name: /^Inspect / })
      .first()
      .click();
    await page.locator('tr.detail').waitFor();
    await shot('dead-letter-inspected');
    await page.getByRole('navigation').getByRole('link', { name: 'Destinations' }).click();
    await page.getByRole('link', { name: 'Bar hook' }).click();
    await page.getByRole('heading', { name: 'Destination Bar hook' }).waitFor();
    await shot('destination');
    await page.close();
  }
  console.log(`screenshots in ${OUT}/`);
} finally {
  await browser.close();
  await receiver.stop();
  await runtime.stop();
}
