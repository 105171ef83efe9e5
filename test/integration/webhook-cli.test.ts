import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '#lambdas/admin/apps';
import { addDestination } from '#lambdas/webhooks/destination-operations';
import * as state from '#lambdas/webhooks/attempt-rules';
import { newDelivery } from '#lambdas/webhooks/deliveries';
import { testEventId } from '#lambdas/webhooks/messages';
import { DESTINATIONS_PER_APPLICATION } from '#lambdas/webhooks/destination-limit';
import type { LocalRuntime } from '#local/runtime';
import { admin, runtimeFileFor } from '../fixtures/admin-cli.js';
import { sampleMenu } from '#local/demo-menu';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { startReceiver } from '../fixtures/webhook-receiver.js';
import { adminCall, expectUnchanged, newApp, scanTable, sentMail, startTestRuntime } from '../support/runtime.js';
import { expectSigningSecret } from '../support/signing-secret.js';

/** `menus` and `destinations` commands as ops run them: a CLI subprocess against a real local runtime. */

let runtime: LocalRuntime;
let dir: string;
let loopbackFile: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret = '';

beforeAll(async () => {
  // No scheduled sweep: the table snapshots that show a refusal changed nothing would catch its writes too.
  runtime = await startTestRuntime({ sweepEveryMs: 24 * 3_600_000, config: { webhookAllowLoopback: true, webhookTimeScale: 0.02 } });
  dir = mkdtempSync(join(tmpdir(), 'webhook-cli-'));
  loopbackFile = runtimeFileFor(runtime, dir, 'loopback.json');
  receiver = await startReceiver({ secret: () => secret });
});
afterAll(async () => {
  await receiver?.stop();
  await runtime?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const snapshot = async () => (await scanTable(runtime)).sort((a, b) => `${a.PK}|${a.SK}`.localeCompare(`${b.PK}|${b.SK}`));

// Each step is a CLI process (a second or two on a quiet machine); a busy one needs more than the default 30 s.
describe('npm run admin -- destinations / menus', () => {
  it('adds (secret once), lists, shows, edits, tests, rotates, disables, enables and removes a destination', async () => {
    const app = await newApp(runtime, { scopes: ['bevq:read'], ownerEmail: 'cli-owner@example.test' });
    const url = `https://127.0.0.1:${receiver.port}/hook?k=secret-query`;
    const added = await admin(loopbackFile, [
      'destinations',
      'add',
      '--app',
      app.clientId,
      '--name',
      'CLI hook',
      '--url',
      url,
      '--locations',
      'nyc-midtown',
      '--json',
    ]);
    expect(added.code, added.stderr).toBe(0);
    const id = added.json.destination.destinationId;
    expect(id).toMatch(/^dst_[0-9a-f]{20}$/);
    expect(added.json.signingSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(added.json.destination).toMatchObject({ hostname: '127.0.0.1', health: 'NOT_TESTED', locationIds: ['nyc-midtown'] });
    expect(added.json.destination).not.toHaveProperty('signingSecret');
    secret = added.json.signingSecret;
    expectSigningSecret(secret);

    const listed = await admin(loopbackFile, ['destinations', 'list', '--app', app.clientId]);
    expect(listed.stdout).toMatch(new RegExp(`${id}\\s+${app.clientId}\\s+CLI hook\\s+127\\.0\\.0\\.1\\s+nyc-midtown\\s+NOT_TESTED`));
    expect(listed.stdout).not.toContain(secret);
    expect(listed.stdout).not.toContain('secret-query');

    const tested = await admin(loopbackFile, ['destinations', 'test', id, '--location', 'nyc-midtown', '--json']);
    expect(tested.code, tested.stderr).toBe(0);
    await waitForStatus(runtime, tested.json.deliveryId, ['SUCCEEDED']);
    expect(receiver.received.at(-1)).toMatchObject({ verified: true, body: { test: true, revision: '', eventId: tested.json.eventId } });

    const shown = await admin(loopbackFile, ['destinations', 'show', id, '--json']);
    expect(shown.json.destination).toMatchObject({ health: 'HEALTHY', lastSuccessAt: expect.any(String), lastFailureAt: null });
    expect(shown.json.recentDeliveries).toEqual([
      expect.objectContaining({ deliveryId: tested.json.deliveryId, status: 'SUCCEEDED', errorCode: null, attempts: 1 }),
    ]);
    expect(shown.stdout).not.toContain('receiver body');
    // Its story: one attempt, by delivery id and (a Send test names one delivery) by event id.
    const story = await admin(loopbackFile, ['deliveries', 'show', tested.json.deliveryId]);
    expect(story.code, story.stderr).toBe(0);
    expect(story.stdout).toMatch(new RegExp(`^event\\s+customer_api\\.webhook\\.test ${tested.json.eventId}$`, 'm'));
    expect(story.stdout).toMatch(/^1\s+\S+\s+attempt\s+http_200\s+SUCCEEDED\s+\d+ ms\s+-$/m);
    expect((await admin(loopbackFile, ['deliveries', 'show', tested.json.eventId])).stdout).toBe(story.stdout);

    const edited = await admin(loopbackFile, ['destinations', 'edit', id, '--name', 'Renamed', '--url', '', '--json']);
    expect(edited.json.destination).toMatchObject({ name: 'Renamed', url });

    const rotated = await admin(loopbackFile, ['destinations', 'rotate-secret', id]);
    const newSecret = /signing_secret\s+(\S+)/.exec(rotated.stdout)![1]!;
    expectSigningSecret(newSecret);
    expect(newSecret).not.toBe(secret);
    expect(rotated.stdout).toContain('shown only now');
    secret = newSecret;

    const disabled = await admin(loopbackFile, ['destinations', 'disable', id, '--json']);
    expect(disabled.json.destination.health).toBe('DISABLED');
    expect((await admin(loopbackFile, ['destinations', 'test', id, '--location', 'nyc-midtown'])).code).toBe(2);
    expect((await admin(loopbackFile, ['destinations', 'enable', id, '--json'])).json.destination.health).toBe('HEALTHY');

    // menus publish reaches the destination, signed with the rotated secret.
    const file = join(dir, 'menu.json');
    writeFileSync(file, JSON.stringify(sampleMenu({ price: 21 })));
    const published = await admin(loopbackFile, [
      'menus',
      'publish',
      '--group',
      'demo-group',
      '--location',
      'nyc-midtown',
      '--file',
      file,
      '--json',
    ]);
    expect(published.code, published.stderr).toBe(0);
    expect(published.json).toMatchObject({ newRevision: true, deliveries: 1, eventId: expect.stringMatching(/^evt_[0-9a-f]{32}$/) });
    const menuEvent = (await receiver.waitFor(2))[1]!;
    expect(menuEvent).toMatchObject({ verified: true, body: { eventId: published.json.eventId, revision: published.json.revision } });
    const again = await admin(loopbackFile, ['menus', 'publish', '--group', 'demo-group', '--location', 'nyc-midtown', '--file', file]);
    expect(again.stdout).toContain('unchanged');
    // The publish wrote the menu's head beside its body.
    expect(await runtime.store.menus.getHead('demo-group', 'nyc-midtown')).toMatchObject({ revision: published.json.revision });

    expect((await admin(loopbackFile, ['destinations', 'remove', id])).stdout).toContain(`Removed destination ${id}`);
    // Each change went through the admin API, so its trail has it: the URL's host, never its query or the secret.
    const trail = (await adminCall(runtime, 'GET', `/audit?destinationId=${id}`)).body;
    const entries = trail.entries as { operation: string; details: unknown; actor: string }[];
    expect(entries.map((e) => e.operation)).toEqual([
      'removeDestination',
      'enableDestination',
      'disableDestination',
      'rotateSecret',
      'editDestination',
      'sendTest',
      'addDestination',
    ]);
    expect(entries.every((e) => e.actor === 'local-admin-key')).toBe(true);
    expect(entries.at(-1)!.details).toEqual({ name: 'CLI hook', urlHost: '127.0.0.1', locations: ['nyc-midtown'] });
    for (const hidden of ['secret-query', added.json.signingSecret, secret]) expect(JSON.stringify(trail)).not.toContain(hidden);
    const mails = (await sentMail(runtime)).filter((m) => m.to.includes('cli-owner@example.test'));
    expect(mails.map((m) => m.subject.replace(/"[^"]*"/, 'N'))).toEqual([
      'Customer API: webhook destination N created',
      'Customer API: webhook destination N updated',
      'Customer API: webhook destination N removed',
    ]);
    expect(mails.map((m) => m.text).join()).not.toContain(secret);
  });

  it("shows each recent delivery's next attempt time", async () => {
    const app = await newApp(runtime, { scopes: ['bevq:read'] });
    const added = await addDestination(runtime.deps, {
      clientId: app.clientId,
      name: 'Retrying',
      url: `https://127.0.0.1:${receiver.port}/hook`,
    });
    const destination = (await runtime.store.destinations.get(added.destination.destinationId))!;
    // A delivery waiting for its next attempt, as the deliverer leaves it after a retryable failure (no message: it stays so).
    const now = Date.now();
    const waiting = state.retry(
      state.start(
        newDelivery(
          {
            eventId: testEventId(),
            eventType: 'customer_api.webhook.test',
            occurredAt: new Date(now).toISOString(),
            groupId: app.app.groupId,
            locationId: 'nyc-midtown',
            revision: '',
          },
          destination,
          now,
        ),
        'm1',
        1,
        now,
      ),
      'http_503',
      45,
      now + 120,
    );
    await runtime.store.deliveries.create(waiting);
    const shown = await admin(loopbackFile, ['destinations', 'show', destination.destinationId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/DELIVERY\s+EVENT\s+LOCATION\s+STATUS\s+ATTEMPTS\s+ERROR\s+NEXT ATTEMPT\s+UPDATED/);
    expect(shown.stdout).toMatch(
      new RegExp(`^${waiting.deliveryId}\\s.*RETRY_PENDING\\s+1\\s+http_503\\s+${waiting.nextAttemptAt}\\s`, 'm'),
    );
  });

  it('refuses ineligible applications, unsafe URLs and malformed input with exit 2, writing nothing', async () => {
    const revoked = await newApp(runtime, { scopes: ['bevq:read'] });
    await runtime.store.apps.revoke(revoked.clientId, new Date().toISOString());
    const legacy = (
      await createApp(runtime.store, { groupId: 'demo-group', name: 'Legacy', scopes: ['bevq:read'] }, Date.now(), 'legacy_bearer')
    ).app;
    const expired = await newApp(runtime, { scopes: ['bevq:read'], expiresAt: '2020-01-01T00:00:00Z' });
    const noBevq = await newApp(runtime, { scopes: ['locations:read'] });
    const narrow = await newApp(runtime, { scopes: ['bevq:read'], allowedLocationIds: ['denver-union'] });
    const ok = await newApp(runtime, { scopes: ['bevq:read'] });
    const loopback = `https://127.0.0.1:${receiver.port}/hook`;
    const before = await snapshot();
    const refused: [string, string[]][] = [
      [loopbackFile, ['destinations', 'add', '--app', revoked.clientId, '--name', 'x', '--url', loopback]],
      [loopbackFile, ['destinations', 'add', '--app', legacy.clientId, '--name', 'x', '--url', loopback]],
      [loopbackFile, ['destinations', 'add', '--app', expired.clientId, '--name', 'x', '--url', loopback]],
      [loopbackFile, ['destinations', 'add', '--app', noBevq.clientId, '--name', 'x', '--url', loopback]],
      [loopbackFile, ['destinations', 'add', '--app', 'app_missing', '--name', 'x', '--url', loopback]],
      [loopbackFile, ['destinations', 'add', '--app', narrow.clientId, '--name', 'x', '--url', loopback, '--locations', 'nyc-midtown']],
      [loopbackFile, ['destinations', 'add', '--app', ok.clientId, '--name', 'x', '--url', loopback, '--locations', 'nowhere']],
      [loopbackFile, ['destinations', 'add', '--app', ok.clientId, '--name', '', '--url', loopback]],
      // The admin API's URL rules (test/unit/url-safety.test.ts): a private address even where loopback is allowed.
      [loopbackFile, ['destinations', 'add', '--app', ok.clientId, '--name', 'x', '--url', 'https://10.0.0.1/']],
      [loopbackFile, ['destinations', 'add', '--app', ok.clientId, '--name', 'x', '--url', 'https://[::ffff:10.0.0.1]/']],
      [loopbackFile, ['destinations', 'show', 'dst_nope']],
      [loopbackFile, ['deliveries', 'show', `dlv_${'0'.repeat(32)}`]],
      [loopbackFile, ['deliveries', 'show', `evt_${'0'.repeat(32)}`]],
      [loopbackFile, ['deliveries', 'show', 'nonsense']],
      [loopbackFile, ['destinations', 'edit', `dst_${'0'.repeat(20)}`, '--name', 'x']],
      [loopbackFile, ['menus', 'publish', '--group', 'demo-group', '--location', 'nyc-midtown', '--file', join(dir, 'missing.json')]],
    ];
    for (const [file, args] of refused) {
      const run = await admin(file, args);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(/^error: /);
    }
    expectUnchanged(await snapshot(), before);
  });

  it(`refuses a destination past the ${DESTINATIONS_PER_APPLICATION} an application may have with exit 2 naming the limit, writing nothing`, async () => {
    const full = await newApp(runtime, { scopes: ['bevq:read'] });
    const url = `https://127.0.0.1:${receiver.port}/hook`;
    for (let i = 0; i < DESTINATIONS_PER_APPLICATION; i++)
      await addDestination(runtime.deps, { clientId: full.clientId, name: `Hook ${i}`, url });
    const before = await snapshot();
    const run = await admin(loopbackFile, ['destinations', 'add', '--app', full.clientId, '--name', 'One more', '--url', url]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `error: application ${full.clientId} has ${DESTINATIONS_PER_APPLICATION} destinations, the limit per application: remove one before adding another`,
    );
    expectUnchanged(await snapshot(), before);
  });
});
