import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { menuKeys } from '#data/menus';
import { publishMenu, writeMenu } from '#lambdas/webhooks/publish';
import { AdminInputError } from '#domain/inputs';
import type { LocalRuntime } from '#local/runtime';
import { sampleMenu } from '#local/demo-menu';
import { expectContract, openApiDoc } from '../support/openapi.js';
import { call, expectUnchanged, manualClock, scanTable, startTestRuntime, tokenFor, watchingDynamo } from '../support/runtime.js';

let runtime: LocalRuntime;
const clock = manualClock();
let token: string;
const MENU = '/v1/demo-group/denver-union/bevq/menu';
/** A client that takes no compression: the validator is the strong one the contract shows. */
const IDENTITY = { 'Accept-Encoding': 'identity' };

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
  ({ token } = await tokenFor(runtime, { scopes: ['bevq:read'] }));
  await publishMenu(runtime.deps, { groupId: 'demo-group', locationId: 'denver-union', menu: sampleMenu() });
});
afterAll(() => runtime?.stop());

describe('GET /v1/{group_id}/{location_id}/bevq/menu', () => {
  it('returns every field of 2.11 in the configured order, currency per size as stored', async () => {
    const reply = await call(runtime, MENU, { token, headers: IDENTITY });
    expect(reply.status).toBe(200);
    expectContract('GET', MENU, reply);
    expect(reply.body).toMatchObject({ ok: true, version: 'v1', resource: 'bevq/menu', groupId: 'demo-group', locationId: 'denver-union' });
    const menu = reply.body.data.menu;
    expect(menu.sections.map((s: any) => s.id)).toEqual(['sec-draft', 'sec-wine']);
    expect(menu.sections[0].items.map((i: any) => i.id)).toEqual(['itm-lager', 'itm-ipa']);
    expect(menu.sectionCount).toBe(2);
    expect(menu.itemCount).toBe(3);
    expect(menu.sections[0].itemCount).toBe(2);
    expect(menu.sections[0].items[1].sectionId).toBe('sec-draft');
    expect(menu.sections[0].items[1].sizes.map((s: any) => s.currency)).toEqual(['USD', 'CAD']);
    expect(menu.sections[1].items[0].sizes[0].currency).toBe('EUR');
    expect(menu.sections[0].items[1].brand).toEqual({ id: 'brw-1', name: 'Local Brewing' });
    expect(menu.revision).toMatch(/^[0-9a-f]{32}$/);
    expect(menu.updatedAt).toBe(new Date(clock.now()).toISOString());
    expect(menu.sourceHealth).toEqual({ pos: 'current', lastPosSyncAt: '2026-11-22T11:55:00.000Z' });
    expect(reply.body.data.location).toEqual({ id: 'denver-union', name: 'Union Station Grill', timezone: 'America/Denver' });
    expect(reply.body.data.refresh.cadence).toBe('targeted_projection_updates');
    expect(reply.headers.get('etag')).toMatch(/^"[0-9a-f]{32}-[0-9a-f]{8}"$/);
    expect(reply.headers.get('cache-control')).toBe('private, no-cache');
    expect(reply.headers.get('vary')).toBe('Authorization, Accept-Encoding');
    expect(reply.headers.get('content-encoding')).toBeNull();
  });

  it('sends the menu gzipped to a client that accepts it, under the weak form of the same validator, which a conditional read matches either way', async () => {
    const plain = await call(runtime, MENU, { token, headers: IDENTITY });
    const raw = await fetch(`${runtime.url}${MENU}`, { headers: { Authorization: `Bearer ${token}`, 'Accept-Encoding': 'gzip' } });
    expect(raw.headers.get('content-encoding')).toBe('gzip');
    expect(raw.headers.get('etag')).toBe(`W/${plain.headers.get('etag')}`);
    expect(raw.headers.get('vary')).toBe('Authorization, Accept-Encoding');
    const bytes = Buffer.from(await raw.arrayBuffer());
    // fetch may already have decoded it; either way the menu is the one sent uncompressed.
    const text = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
    expect(JSON.parse(text).data.menu).toEqual(plain.body.data.menu);
    for (const validator of [raw.headers.get('etag')!, plain.headers.get('etag')!]) {
      const reply = await call(runtime, MENU, { token, headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': validator } });
      expect([reply.status, reply.headers.get('etag')]).toEqual([304, raw.headers.get('etag')]);
    }
  });

  it('answers 304 with an empty body for the exact, weak, listed and * validators, keeping the caching headers', async () => {
    const etag = (await call(runtime, MENU, { token, headers: IDENTITY })).headers.get('etag')!;
    for (const validator of [etag, `W/${etag}`, `"nope", ${etag}`, `W/"x",W/${etag}`, '*']) {
      const reply = await call(runtime, MENU, { token, headers: { ...IDENTITY, 'If-None-Match': validator } });
      expect(reply.status, validator).toBe(304);
      expect(reply.text).toBe('');
      expect(reply.headers.get('etag')).toBe(etag);
      expect(reply.headers.get('cache-control')).toBe('private, no-cache');
      expect(reply.headers.get('vary')).toBe('Authorization, Accept-Encoding');
    }
  });

  it('answers 200 for any other validator, malformed ones included', async () => {
    const etag = (await call(runtime, MENU, { token, headers: IDENTITY })).headers.get('etag')!;
    for (const validator of ['"other"', etag.slice(1, -1), `${etag.slice(0, -2)}"`, 'W/', '"unterminated', `${etag}; x`, '']) {
      const reply = await call(runtime, MENU, { token, headers: { ...IDENTITY, 'If-None-Match': validator } });
      expect(reply.status, validator).toBe(200);
      expectContract('GET', MENU, reply);
    }
  });

  it('keeps revision and ETag for an unchanged rebuild and changes both for new content', async () => {
    const before = await call(runtime, MENU, { token, headers: IDENTITY });
    clock.advance(60_000);
    const same = await publishMenu(runtime.deps, { groupId: 'demo-group', locationId: 'denver-union', menu: sampleMenu() });
    expect(same).toMatchObject({ written: false, newRevision: false, eventId: null });
    const after = await call(runtime, MENU, { token, headers: { ...IDENTITY, 'If-None-Match': before.headers.get('etag')! } });
    expect(after.status).toBe(304);

    const changed = await publishMenu(runtime.deps, { groupId: 'demo-group', locationId: 'denver-union', menu: sampleMenu({ price: 9 }) });
    expect(changed.newRevision).toBe(true);
    const reread = await call(runtime, MENU, { token, headers: { ...IDENTITY, 'If-None-Match': before.headers.get('etag')! } });
    expect(reread.status).toBe(200);
    expect(reread.body.data.menu.revision).not.toBe(before.body.data.menu.revision);
    expect(reread.headers.get('etag')).not.toBe(before.headers.get('etag'));
    // Only the changed item and its section get a new updatedAt.
    const draft = reread.body.data.menu.sections[0];
    expect(draft.updatedAt).toBe(new Date(clock.now()).toISOString());
    expect(draft.items.find((i: any) => i.id === 'itm-lager').updatedAt).toBe(before.body.data.menu.sections[0].items[0].updatedAt);
    expect(reread.body.data.menu.sections[1].updatedAt).toBe(before.body.data.menu.sections[1].updatedAt);
  });

  it('derives sourceHealth.pos from success and failure order, not age', async () => {
    const cases = [
      [{ lastPosSyncAt: null }, 'unknown'],
      [{ lastPosSyncAt: '2026-11-20T00:00:00.000Z' }, 'current'],
      [{ lastPosSyncAt: '2026-11-20T00:00:00.000Z', lastPosFailureAt: '2026-11-21T00:00:00.000Z' }, 'stale'],
      [{ lastPosSyncAt: '2026-11-22T00:00:00.000Z', lastPosFailureAt: '2026-11-21T00:00:00.000Z' }, 'current'],
    ] as const;
    for (const [health, pos] of cases) {
      await publishMenu(runtime.deps, { groupId: 'demo-group', locationId: 'london-soho', menu: sampleMenu(health) });
      const reply = await call(runtime, '/v1/demo-group/london-soho/bevq/menu', { token });
      expect(reply.body.data.menu.sourceHealth, JSON.stringify(health)).toEqual({ pos, lastPosSyncAt: health.lastPosSyncAt });
    }
  });

  it('is 404 where no menu is published, and 403 for a location outside the token', async () => {
    const missing = await call(runtime, '/v1/demo-group/sydney-harbour/bevq/menu', { token });
    expect(missing.status).toBe(404);
    expectContract('GET', '/v1/demo-group/sydney-harbour/bevq/menu', missing);
    const star = await call(runtime, '/v1/demo-group/sydney-harbour/bevq/menu', { token, headers: { 'If-None-Match': '*' } });
    expect(star.status).toBe(404);
    const narrow = await tokenFor(runtime, { scopes: ['bevq:read'], allowedLocationIds: ['nyc-midtown'] });
    expect((await call(runtime, MENU, { token: narrow.token })).status).toBe(403);
    const noScope = await tokenFor(runtime, { scopes: ['locations:read'] });
    expect((await call(runtime, MENU, { token: noScope.token })).status).toBe(403);
  });
});

describe('GET /v1/{group_id}/{location_id}/bevq and /v1/{group_id}/bevq', () => {
  it('gives the location status and menu endpoint', async () => {
    const published = await call(runtime, '/v1/demo-group/denver-union/bevq', { token });
    expect(published.status).toBe(200);
    expectContract('GET', '/v1/demo-group/denver-union/bevq', published);
    expect(published.body.resource).toBe('bevq');
    expect(published.body.data.status).toBe('published');
    expect(published.body.data.menu).toMatchObject({ available: true, sectionCount: 2, itemCount: 3, endpoint: `${runtime.url}${MENU}` });
    const empty = await call(runtime, '/v1/demo-group/sydney-harbour/bevq', { token });
    expectContract('GET', '/v1/demo-group/sydney-harbour/bevq', empty);
    expect(empty.body.data).toMatchObject({ status: 'not_published', menu: { available: false, revision: null, sourceHealth: null } });
  });

  it('lists availability across the accessible locations only', async () => {
    const reply = await call(runtime, '/v1/demo-group/bevq', { token });
    expectContract('GET', '/v1/demo-group/bevq', reply);
    expect(reply.body).not.toHaveProperty('locationId');
    const byId = Object.fromEntries(reply.body.data.locations.map((l: any) => [l.id, l]));
    expect(Object.keys(byId).sort()).toEqual(['denver-union', 'london-soho', 'nyc-midtown', 'sydney-harbour']);
    expect(byId['denver-union'].menu.available).toBe(true);
    expect(byId['nyc-midtown'].menu).toMatchObject({ available: false, revision: null });
    const narrow = await tokenFor(runtime, { scopes: ['bevq:read'], allowedLocationIds: ['nyc-midtown'] });
    const limited = await call(runtime, '/v1/demo-group/bevq', { token: narrow.token });
    expect(limited.body.data.locations.map((l: any) => l.id)).toEqual(['nyc-midtown']);
  });

  it("shows on each page exactly its own locations' menus, as each location's status does", async () => {
    // A menu last on the first page of two and one first on the second: each page reads its own range of heads.
    for (const locationId of ['london-soho', 'nyc-midtown'])
      await publishMenu(runtime.deps, { groupId: 'demo-group', locationId, menu: sampleMenu({ price: 12 }) });
    const whole = await call(runtime, '/v1/demo-group/bevq', { token });
    const paged: any[] = [];
    for (let cursor: string | undefined, pages = 0; pages === 0 || cursor; pages++) {
      const page = await call(runtime, `/v1/demo-group/bevq?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
      expect(page.status).toBe(200);
      paged.push(...page.body.data.locations);
      cursor = page.body.data.nextCursor;
    }
    expect(paged).toEqual(whole.body.data.locations);
    for (const listed of paged) {
      const status = await call(runtime, `/v1/demo-group/${listed.id}/bevq`, { token });
      expect(listed.menu, listed.id).toMatchObject({
        available: status.body.data.menu.available,
        revision: status.body.data.menu.revision,
      });
    }
    expect(paged.filter((l) => l.menu.available).map((l) => l.id)).toEqual(['denver-union', 'london-soho', 'nyc-midtown']);
  });
});

describe('OpenAPI', () => {
  it('documents the 304 of the menu and both webhook events with their payload schema', () => {
    const menu = openApiDoc.paths['/v1/{group_id}/{location_id}/bevq/menu'].get;
    expect(menu.responses['304']).toMatchObject({ headers: { ETag: expect.any(Object) } });
    expect(menu.parameters.map((p: any) => p.name)).toContain('If-None-Match');
    expect(Object.keys(openApiDoc.webhooks).sort()).toEqual(['bevq.menu.updated', 'customer_api.webhook.test']);
    const payload = openApiDoc.components.schemas.WebhookPayload;
    expect(payload.required.sort()).toEqual(['eventId', 'eventType', 'groupId', 'locationId', 'occurredAt', 'resource', 'revision']);
    expect(Object.keys(payload.properties)).toContain('test');
  });
});

describe('menu publishing input', () => {
  it('refuses malformed menus and changes nothing', async () => {
    const before = await scanTable(runtime);
    const bad: unknown[] = [
      null,
      {},
      { ...sampleMenu(), sections: 'x' },
      { ...sampleMenu(), extra: 1 },
      { ...sampleMenu(), sections: [{ ...sampleMenu().sections[0]!, id: '' }] },
      { ...sampleMenu(), sections: [sampleMenu().sections[0]!, sampleMenu().sections[0]!] },
      { ...sampleMenu(), sourceHealth: { lastPosSyncAt: '2026-02-30T00:00:00Z' } },
    ];
    const lowercase = sampleMenu();
    lowercase.sections[0]!.items[0]!.sizes[0]!.currency = 'eur';
    bad.push(lowercase);
    const wrongSection = sampleMenu();
    wrongSection.sections[0]!.items[0]!.sectionId = 'sec-draft';
    bad.push(wrongSection);
    for (const menu of bad) {
      await expect(
        publishMenu(runtime.deps, { groupId: 'demo-group', locationId: 'nyc-midtown', menu }),
        JSON.stringify(menu)?.slice(0, 80),
      ).rejects.toBeInstanceOf(AdminInputError);
    }
    await expect(publishMenu(runtime.deps, { groupId: 'demo-group', locationId: 'nowhere', menu: sampleMenu() })).rejects.toBeInstanceOf(
      AdminInputError,
    );
    await expect(publishMenu(runtime.deps, { groupId: 'demo-group', locationId: '../x', menu: sampleMenu() })).rejects.toBeInstanceOf(
      AdminInputError,
    );
    expectUnchanged(await scanTable(runtime), before);
  });
});

describe('menu heads', () => {
  const LOCATION = 'nyc-midtown';
  const PATH = `/v1/demo-group/${LOCATION}/bevq/menu`;
  const doc = () => DynamoDBDocumentClient.from(runtime.dynamo);
  const headKey = () => menuKeys.head('demo-group', LOCATION);

  /** The sort keys of the items read while `run` runs (GetItem and BatchGetItem). */
  async function itemsRead(run: () => Promise<unknown>): Promise<string[]> {
    const read: string[] = [];
    await watchingDynamo(
      runtime,
      (input: { Key?: { SK?: string }; RequestItems?: Record<string, { Keys: { SK: string }[] }> }) => {
        if (input.Key?.SK) read.push(input.Key.SK);
        for (const request of Object.values(input.RequestItems ?? {})) read.push(...request.Keys.map((k) => k.SK));
      },
      run,
    );
    return read;
  }

  beforeAll(async () => {
    await publishMenu(runtime.deps, { groupId: 'demo-group', locationId: LOCATION, menu: sampleMenu({ price: 21 }) });
  });

  it('answers a matching conditional read from the head alone, and any other read from the body', async () => {
    const etag = (await call(runtime, PATH, { token, headers: IDENTITY })).headers.get('etag')!;
    let reply: Awaited<ReturnType<typeof call>> | undefined;
    const conditional = await itemsRead(
      async () => void (reply = await call(runtime, PATH, { token, headers: { ...IDENTITY, 'If-None-Match': etag } })),
    );
    expect(reply!.status).toBe(304);
    expect(conditional).toContain(`BEVQ_HEAD#${LOCATION}`);
    expect(conditional).not.toContain(`BEVQ_MENU#${LOCATION}`);
    const plain = await itemsRead(() => call(runtime, PATH, { token, headers: IDENTITY }));
    expect(plain).toContain(`BEVQ_MENU#${LOCATION}`);
    const status = await itemsRead(() => call(runtime, `/v1/demo-group/${LOCATION}/bevq`, { token }));
    expect(status).not.toContain(`BEVQ_MENU#${LOCATION}`);
  });

  it('never winds a head back: an older head written late changes nothing', async () => {
    const current = (await runtime.store.menus.getHead('demo-group', LOCATION))!;
    await runtime.store.menus.putHead({ ...current, seq: current.seq - 1, etag: '"older"', revision: 'older' });
    expect(await runtime.store.menus.getHead('demo-group', LOCATION)).toEqual(current);
  });

  it('has the sweeper rewrite a head that a publish left behind, before it dispatches the event', async () => {
    const old = (await runtime.store.menus.getHead('demo-group', LOCATION))!;
    // The publish died after its body: its head and its dispatch never happened.
    const written = await writeMenu(runtime.deps, { groupId: 'demo-group', locationId: LOCATION, menu: sampleMenu({ price: 22 }) });
    await doc().send(new PutCommand({ TableName: runtime.tableName, Item: { ...headKey(), ...old } }));
    expect((await call(runtime, PATH, { token, headers: { ...IDENTITY, 'If-None-Match': old.etag } })).status).toBe(304);
    clock.advance(61_000);
    await runtime.sweep();
    const head = await runtime.store.menus.getHead('demo-group', LOCATION);
    expect(head).toMatchObject({ revision: written.stored.menu.revision, etag: written.stored.etag });
    expect((await call(runtime, PATH, { token, headers: { ...IDENTITY, 'If-None-Match': old.etag } })).status).toBe(200);
  });
});
