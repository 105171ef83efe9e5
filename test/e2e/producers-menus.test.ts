import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { sampleMenu } from '#local/demo-menu';
import { addDestination } from '#lambdas/webhooks/destination-operations';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { ENGINE_NAME, call, manualClock, newApp, producerCall, startTestRuntime, tokenFor } from '../support/runtime.js';

/**
 * The POS sync's menus over HTTP (docs/decisions/producers.md, "Menus"): rebuilds in order, stock patches ordered
 * per item and published exactly as the patched menu published whole, reconciliation reports moving sourceHealth.
 */

let runtime: LocalRuntime;
const NOW = Date.UTC(2026, 10, 22, 13, 0, 0);
const clock = manualClock(NOW - 60 * 60_000);
const dns = controlledResolver({ 'hooks.example.test': ['127.0.0.1'] });
const receivers: { stop(): Promise<void> }[] = [];
const iso = (ms: number) => new Date(ms).toISOString();
const GROUP = 'demo-group';

beforeAll(async () => {
  runtime = await startTestRuntime({ clock, resolver: dns.resolver, config: { webhookAllowLoopback: true } });
  clock.set(NOW);
});
afterAll(async () => {
  for (const r of receivers) await r.stop();
  await runtime?.stop();
});

/** The sample menu's sections: what a rebuild carries (its source health is the reports'). */
const sections = (price?: number) => sampleMenu(price === undefined ? {} : { price }).sections;
const send = (method: string, path: string, sourceMs: number, data: unknown, sequence?: number) =>
  producerCall(runtime, 'pos-sync', method, path, { sourceTime: iso(sourceMs), ...(sequence === undefined ? {} : { sequence }), data });
const rebuild = (location: string, sourceMs: number, price?: number) =>
  send('PUT', `/menus/${GROUP}/${location}`, sourceMs, { sections: sections(price) });
const patch = (location: string, sourceMs: number, items: unknown[]) => send('PATCH', `/menus/${GROUP}/${location}`, sourceMs, { items });
const reconciled = (location: string, sourceMs: number, result: 'succeeded' | 'failed') =>
  send('PUT', `/menus/${GROUP}/${location}/reconciliation`, sourceMs, { result });

/** The menu a customer reads, and its ETag. */
async function served(location: string) {
  const { token } = await tokenFor(runtime, { scopes: ['bevq:read'] });
  const reply = await call(runtime, `/v1/${GROUP}/${location}/bevq/menu`, { token });
  return { status: reply.status, etag: reply.headers.get('etag'), menu: reply.body?.data?.menu };
}
/** What a reader compares: the menu without its clocks. */
const content = (menu: any) => JSON.parse(JSON.stringify(menu, (key, value) => (key === 'updatedAt' ? undefined : value)));
const ipaPint = (menu: any) =>
  menu.sections
    .flatMap((s: any) => s.items)
    .find((i: any) => i.id === 'itm-ipa')
    .sizes.find((s: any) => s.id === 'pint');

describe(`menus from the POS sync (${ENGINE_NAME})`, () => {
  it('publishes a rebuild in order: a replay and an older rebuild change nothing', async () => {
    const t = NOW - 30 * 60_000;
    expect((await rebuild('denver-union', t, 5)).body).toMatchObject({ outcome: 'applied', records: 3 });
    const first = await served('denver-union');
    expect(first.status).toBe(200);
    expect(ipaPint(first.menu).price).toBe(5);
    // No reconciliation reported yet: 2.11 rule 3's `unknown`, whatever the rebuild says of time.
    expect(first.menu.sourceHealth).toEqual({ pos: 'unknown', lastPosSyncAt: null });

    expect((await rebuild('denver-union', t, 6)).body.outcome).toBe('duplicate');
    expect((await rebuild('denver-union', t - 1, 7)).body.outcome).toBe('stale');
    expect(await served('denver-union')).toEqual(first);
  });

  it('applies a stock patch exactly as the patched menu published whole, with one bevq.menu.updated each', async () => {
    const holder = { secret: '' };
    const receiver = await startReceiver({ secret: () => holder.secret });
    receivers.push(receiver);
    const app = await newApp(runtime, { scopes: ['bevq:read'], ownerEmail: 'menus@example.test' });
    const created = await addDestination(runtime.deps, {
      clientId: app.clientId,
      name: 'Menus',
      url: receiver.url,
      locationIds: ['nyc-midtown', 'london-soho'],
    });
    holder.secret = created.signingSecret;

    const t = NOW - 20 * 60_000;
    // Two locations with the same base menu: one patched, the other rebuilt whole with the patch's values.
    expect((await rebuild('nyc-midtown', t, 8)).body.outcome).toBe('applied');
    expect((await rebuild('london-soho', t, 8)).body.outcome).toBe('applied');
    const first = await served('nyc-midtown');
    const patched = await patch('nyc-midtown', t + 1000, [{ id: 'itm-ipa', sizes: [{ id: 'pint', price: 9.5 }] }]);
    expect(patched.body).toMatchObject({ outcome: 'applied', records: 1 });
    expect((await rebuild('london-soho', t + 1000, 9.5)).body.outcome).toBe('applied');

    const [a, b] = [await served('nyc-midtown'), await served('london-soho')];
    expect(ipaPint(a.menu).price).toBe(9.5);
    expect(a.menu.revision).toBe(b.menu.revision);
    expect(a.etag).toBe(b.etag);
    expect(content(a.menu)).toEqual(content(b.menu));
    expect((await receiver.waitFor(4)).every((r) => r.verified && r.body.eventType === 'bevq.menu.updated')).toBe(true);

    // A patch that changes nothing a reader sees moves the item's order only: no new revision, no event.
    expect((await patch('nyc-midtown', t + 2000, [{ id: 'itm-ipa', sizes: [{ id: 'pint', price: 9.5 }] }])).body.outcome).toBe('applied');
    expect((await served('nyc-midtown')).etag).toBe(a.etag);
    // ...and an older one for that item is stale, where another item's order is still the rebuild's.
    expect((await patch('nyc-midtown', t + 1500, [{ id: 'itm-ipa', available: false }])).body.outcome).toBe('stale');
    expect((await patch('nyc-midtown', t + 1500, [{ id: 'itm-rioja', available: false }])).body.outcome).toBe('applied');
    expect((await patch('nyc-midtown', t + 1500, [{ id: 'itm-rioja', available: false }])).body.outcome).toBe('duplicate');

    // A rebuild newer than the menu's last rebuild, older than an item's patch: that item keeps its patched stock.
    expect((await rebuild('nyc-midtown', t + 1200, 4)).body.outcome).toBe('applied');
    const after = (await served('nyc-midtown')).menu;
    expect(ipaPint(after).price).toBe(9.5);
    expect(after.sections.flatMap((s: any) => s.items).find((i: any) => i.id === 'itm-rioja').available).toBe(false);
    // Events: the two rebuilds, the price patch and its whole twin, the rioja patch; the last rebuild kept the
    // content (an event of it would repeat the rioja patch's revision), and so does the next patch's.
    const riojaOff = after.revision;
    expect((await patch('nyc-midtown', t + 3000, [{ id: 'itm-ipa', sizes: [{ id: 'pint', price: 9.75 }] }])).body.outcome).toBe('applied');
    const repriced = (await served('nyc-midtown')).menu.revision;
    const sent = (await receiver.waitFor(6)).map((r) => `${r.body.locationId} ${r.body.revision}`).sort();
    const base = first.menu.revision;
    const expected = [`london-soho ${base}`, `london-soho ${a.menu.revision}`, `nyc-midtown ${base}`, `nyc-midtown ${a.menu.revision}`];
    expect(sent).toEqual([...expected, `nyc-midtown ${riojaOff}`, `nyc-midtown ${repriced}`].sort());
  });

  it('moves sourceHealth on reconciliation reports only, in their order, keeping the revision', async () => {
    const t = NOW - 10 * 60_000;
    expect((await rebuild('london-soho', t, 3)).body.outcome).toBe('applied');
    const base = await served('london-soho');
    expect((await reconciled('london-soho', t + 1000, 'succeeded')).body).toMatchObject({ outcome: 'applied', records: 1 });
    const current = await served('london-soho');
    expect(current.menu.sourceHealth).toEqual({ pos: 'current', lastPosSyncAt: iso(t + 1000) });
    expect(current.menu.revision).toBe(base.menu.revision);
    expect(current.etag).not.toBe(base.etag);

    expect((await reconciled('london-soho', t + 1000, 'succeeded')).body.outcome).toBe('duplicate');
    expect((await reconciled('london-soho', t + 2000, 'failed')).body.outcome).toBe('applied');
    expect((await served('london-soho')).menu.sourceHealth).toEqual({ pos: 'stale', lastPosSyncAt: iso(t + 1000) });
    // A success older than the failure does not make it current again; a later one does.
    expect((await reconciled('london-soho', t + 500, 'succeeded')).body.outcome).toBe('stale');
    expect((await served('london-soho')).menu.sourceHealth.pos).toBe('stale');
    expect((await reconciled('london-soho', t + 3000, 'succeeded')).body.outcome).toBe('applied');
    expect((await served('london-soho')).menu.sourceHealth).toEqual({ pos: 'current', lastPosSyncAt: iso(t + 3000) });
    // A rebuild keeps the reported health.
    expect((await rebuild('london-soho', t + 4000, 2)).body.outcome).toBe('applied');
    expect((await served('london-soho')).menu.sourceHealth).toEqual({ pos: 'current', lastPosSyncAt: iso(t + 3000) });
  });

  it('refuses bad input whole, naming the field, and changes nothing', async () => {
    const before = await served('denver-union');
    const t = NOW - 60_000;
    const refusals: [Promise<{ status: number; body: any }>, number, RegExp][] = [
      [patch('denver-union', t, [{ id: 'itm-nope', available: true }]), 400, /itm-nope/],
      [patch('denver-union', t, [{ id: 'itm-ipa', sizes: [{ id: 'magnum', price: 1 }] }]), 400, /magnum/],
      [patch('denver-union', t, [{ id: 'itm-ipa', available: 'yes' }]), 400, /available/],
      [patch('denver-union', t, [{ id: 'itm-ipa', sizes: [{ id: 'pint', price: -1 }] }]), 400, /price/],
      [patch('denver-union', t, [{ id: 'itm-ipa', name: 'Renamed' }]), 400, /name/],
      [patch('denver-union', t, [{ id: 'itm-ipa' }, { id: 'itm-ipa' }]), 400, /repeats/],
      [patch('denver-union', t, []), 400, /items/],
      [
        send('PUT', `/menus/${GROUP}/denver-union`, t, { sections: sections(), sourceHealth: { lastPosSyncAt: iso(t) } }),
        400,
        /sourceHealth/,
      ],
      [send('PUT', `/menus/${GROUP}/denver-union`, t, { sections: [{ id: 'ß'.repeat(200) }] }), 400, /sections/],
      [reconciled('denver-union', t, 'maybe' as 'failed'), 400, /result/],
      [reconciled('no-such-place', t, 'failed'), 404, /no-such-place/],
    ];
    for (const [reply, status, message] of refusals) {
      const { status: got, body } = await reply;
      expect({ got, message: body.error?.message }).toEqual({ got: status, message: expect.stringMatching(message) });
    }
    // Before any menu, a patch or a report has nothing to apply to.
    expect((await reconciled('sydney-harbour', t, 'succeeded')).status).toBe(404);
    // Another producer's key never reaches the menus.
    const other = await producerCall(runtime, 'sports-sync', 'PUT', `/menus/${GROUP}/denver-union`, {
      sourceTime: iso(t),
      data: { sections: sections() },
    });
    expect(other.status).toBe(403);
    expect(await served('denver-union')).toEqual(before);
  });
});
