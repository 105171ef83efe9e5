import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { sampleMenu } from '#local/demo-menu';
import { menuEventId } from '#lambdas/webhooks/messages';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { DESTINATIONS_PER_APPLICATION } from '#lambdas/webhooks/destination-limit';
import { call, exchange, expectUnchanged, rateCount, scanTable, sentMail, startTestRuntime, watchingDynamo } from '../support/runtime.js';
import { expectSigningSecret } from '../support/signing-secret.js';

/**
 * The admin HTTP API over real HTTP against the local runtime, with a real
 * HTTPS receiver for send-test. Locally the admin key stands in for the IAM
 * (SigV4) authorization API Gateway applies in AWS.
 */

const ADMIN_KEY = 'test-admin-key-0123456789';
let runtime: LocalRuntime;
const dns = controlledResolver({ 'hooks.example.test': ['127.0.0.1'], 'private.example.test': ['10.1.2.3'] });
const receivers: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  runtime = await startTestRuntime({
    adminKey: ADMIN_KEY,
    resolver: dns.resolver,
    config: { webhookAllowLoopback: true, webhookTimeScale: 0.2 },
  });
});
afterAll(async () => {
  for (const r of receivers) await r.stop();
  await runtime?.stop();
});

type Reply = { status: number; headers: Headers; body: any };

async function admin(
  method: string,
  path: string,
  body?: unknown,
  init: { key?: string | null; headers?: Record<string, string>; raw?: string } = {},
): Promise<Reply> {
  const key = init.key === undefined ? ADMIN_KEY : init.key;
  const hasBody = body !== undefined || init.raw !== undefined;
  const response = await fetch(`${runtime.url}/admin/v1${path}`, {
    method,
    headers: {
      ...(key ? { Authorization: `Bearer ${key}` } : {}),
      ...(hasBody ? { 'Content-Type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

const newApp = (overrides: Record<string, unknown> = {}) =>
  admin('POST', '/apps', {
    groupId: 'demo-group',
    name: 'Admin API app',
    scopes: ['bevq:read'],
    ownerEmail: 'admin-api-owner@example.test',
    ...overrides,
  });

describe('admin API access', () => {
  it('refuses a request without the admin key, or with another key, before anything runs', async () => {
    const before = await scanTable(runtime);
    for (const key of [null, 'wrong', `${ADMIN_KEY}x`]) {
      const reply = await admin('POST', '/apps', { groupId: 'demo-group', name: 'x', scopes: ['bevq:read'] }, { key });
      expect(reply.status, String(key)).toBe(403);
      // API Gateway's own refusal of an unsigned request: an HTTP API cannot give it the contract's shape.
      expect(reply.body).toEqual({ message: 'Forbidden' });
    }
    // A /v1 bearer token is not an admin key either.
    const created = await newApp();
    const token = await exchange(runtime, created.body.app.clientId, created.body.clientSecret);
    expect((await admin('GET', '/apps', undefined, { key: token.access_token })).status).toBe(403);
    expect((await scanTable(runtime)).length).toBeGreaterThan(before.length);
  });
});

describe('applications', () => {
  it("shows each application's requests in the current minute beside its limit", async () => {
    const { app, clientSecret } = (await newApp({ scopes: ['locations:read'] })).body;
    const token = await exchange(runtime, app.clientId, clientSecret);
    for (let i = 0; i < 3; i++) {
      expect((await call(runtime, '/v1/demo-group/locations', { token: token.access_token })).status).toBe(200);
    }
    const listed = await admin('GET', '/apps?groupId=demo-group&limit=1000');
    expect(listed.body.minute).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    const shown = listed.body.apps.find((a: { clientId: string }) => a.clientId === app.clientId);
    // The window's counter as the table holds it (the minute may have turned since the calls).
    expect(shown.requestsThisMinute).toBe(await rateCount(runtime, app.clientId));
    expect(shown.rateLimitPerMinute).toEqual(expect.any(Number));
  });

  it('creates an application whose secret is shown once and works at the token endpoint; lists and revokes it', async () => {
    const created = await newApp();
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const { app, clientSecret } = created.body;
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(app).toMatchObject({ groupId: 'demo-group', scopes: ['bevq:read'], credentialType: 'client_credentials' });
    expect(JSON.stringify(app)).not.toContain(clientSecret);
    expect(app).not.toHaveProperty('secretHash');

    expect((await exchange(runtime, app.clientId, clientSecret)).access_token).toBeTruthy();
    const shown = await admin('GET', `/apps/${app.clientId}`);
    // With an owner's address, whether SES reported it bouncing or complaining (docs/decisions/mail-suppression.md).
    expect(shown.body).toEqual({ app: { ...app, ownerEmailSuppressed: false } });
    const listed = await admin('GET', '/apps?groupId=demo-group');
    expect(listed.body.apps.map((a: { clientId: string }) => a.clientId)).toContain(app.clientId);
    expect(JSON.stringify(listed.body)).not.toContain(clientSecret);

    expect(await admin('POST', `/apps/${app.clientId}/revoke`, {})).toMatchObject({ status: 200, body: { revoked: app.clientId } });
    await expect(exchange(runtime, app.clientId, clientSecret)).rejects.toThrow();
  });

  it('refuses bad application input with a clear 400 or 404 and creates nothing', async () => {
    const before = (await scanTable(runtime)).length;
    const cases: [Record<string, unknown> | string, number, RegExp][] = [
      ['{"groupId": "demo-group",', 400, /not valid JSON/],
      ['[]', 400, /JSON object/],
      [{ groupId: 'demo-group', name: 'x', scopes: ['no:such'] }, 400, /unknown scope/],
      [{ groupId: 'demo-group', name: 'x', scopes: 'bevq:read' }, 400, /scopes/],
      [{ groupId: 'demo-group', name: 'x', scopes: ['bevq:read'], secretHash: 'mine' }, 400, /^Field secretHash is not allowed/],
      [{ groupId: 'no-such-group', name: 'x', scopes: ['bevq:read'] }, 400, /group no-such-group does not exist/],
      [{ groupId: 'demo-group', name: 'x', scopes: ['bevq:read'], allowedLocationIds: ['atlantis'] }, 400, /atlantis/],
      [{ groupId: 'demo-group', name: 'x', scopes: ['bevq:read'], rateLimitPerMinute: 0 }, 400, /rateLimitPerMinute/],
    ];
    for (const [body, status, message] of cases) {
      const reply = typeof body === 'string' ? await admin('POST', '/apps', undefined, { raw: body }) : await admin('POST', '/apps', body);
      expect(reply.status, JSON.stringify(body)).toBe(status);
      expect(reply.body.error.message, JSON.stringify(body)).toMatch(message);
      expect(reply.body.error.code).toBe('invalid_request');
    }
    const wrongType = await admin('POST', '/apps', undefined, { raw: '{}', headers: { 'Content-Type': 'text/plain' } });
    expect(wrongType.status).toBe(415);
    const oversized = await admin('POST', '/apps', { groupId: 'demo-group', name: 'x'.repeat(20_000), scopes: ['bevq:read'] });
    expect(oversized.status).toBe(413);
    expect((await admin('GET', '/apps/app_unknown')).status).toBe(404);
    expect((await admin('POST', '/apps/app_unknown/revoke', {})).status).toBe(404);
    expect((await scanTable(runtime)).length).toBe(before);
  });
});

describe('destinations', () => {
  it('adds, tests, edits, rotates, disables, enables and removes a destination, each over HTTP', async () => {
    const holder = { secret: '' };
    const receiver = await startReceiver({ secret: () => holder.secret });
    receivers.push(receiver);
    const app = (await newApp()).body.app;
    const mailBefore = (await sentMail(runtime)).length;

    const added = await admin('POST', '/destinations', {
      clientId: app.clientId,
      name: 'Bar hook',
      url: receiver.url,
      locationIds: ['nyc-midtown'],
    });
    expect(added.status).toBe(201);
    const { destination, signingSecret } = added.body;
    holder.secret = signingSecret;
    expectSigningSecret(signingSecret);
    expect(destination).toMatchObject({ clientId: app.clientId, name: 'Bar hook', url: receiver.url, health: 'NOT_TESTED', enabled: true });
    expect(JSON.stringify(destination)).not.toContain(signingSecret);
    const id = destination.destinationId as string;

    const tested = await admin('POST', `/destinations/${id}/test`, { locationId: 'nyc-midtown' });
    expect(tested.status).toBe(202);
    const [request] = await receiver.waitFor(1);
    expect(request!.verified).toBe(true);
    expect(request!.body).toMatchObject({ eventType: 'customer_api.webhook.test', test: true, revision: '', locationId: 'nyc-midtown' });
    expect(request!.headers['x-service-event']).toBe('customer_api.webhook.test');
    await waitForStatus(runtime, tested.body.deliveryId, ['SUCCEEDED']);
    const shown = await admin('GET', `/destinations/${id}`);
    expect(shown.body.destination.health).toBe('HEALTHY');
    expect(shown.body.recentDeliveries[0]).toMatchObject({ deliveryId: tested.body.deliveryId, status: 'SUCCEEDED' });
    expect(JSON.stringify(shown.body)).not.toContain(signingSecret);

    // A blank URL keeps the URL; the secret is kept through an edit.
    const edited = await admin('PATCH', `/destinations/${id}`, { name: 'Renamed hook', url: '' });
    expect(edited.body.destination).toMatchObject({ name: 'Renamed hook', url: receiver.url });

    const rotated = await admin('POST', `/destinations/${id}/rotate-secret`, {});
    expectSigningSecret(rotated.body.signingSecret);
    expect(rotated.body.signingSecret).not.toBe(signingSecret);
    holder.secret = rotated.body.signingSecret;
    await admin('POST', `/destinations/${id}/test`, { locationId: 'nyc-midtown' });
    const [, second] = await receiver.waitFor(2);
    expect(second!.verified).toBe(true);

    expect((await admin('POST', `/destinations/${id}/disable`, {})).body.destination.health).toBe('DISABLED');
    const refused = await admin('POST', `/destinations/${id}/test`, { locationId: 'nyc-midtown' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect((await admin('POST', `/destinations/${id}/enable`, {})).body.destination.enabled).toBe(true);

    const listed = await admin('GET', `/destinations?clientId=${app.clientId}`);
    expect(listed.body.destinations.map((d: { destinationId: string }) => d.destinationId)).toEqual([id]);

    const removed = await admin('DELETE', `/destinations/${id}`);
    expect(removed.status).toBe(204);
    expect((await admin('GET', `/destinations/${id}`)).status).toBe(404);
    // Configuration e-mails on create, update and remove only (not on tests, rotation, disable or enable).
    const subjects = (await sentMail(runtime)).slice(mailBefore).map((m) => m.subject);
    expect(subjects).toHaveLength(3);
  });

  it('refuses unsafe URLs and malformed edits with nothing changed', async () => {
    const app = (await newApp()).body.app;
    const before = (await scanTable(runtime)).length;
    for (const url of [
      'http://hooks.example.test/x',
      'https://user:pw@hooks.example.test/x',
      'https://private.example.test/x',
      'https://169.254.169.254/latest',
      'https://0xa9.0xfe.0xa9.0xfe/latest',
      'https://[::ffff:10.0.0.1]/x',
    ]) {
      const reply = await admin('POST', '/destinations', { clientId: app.clientId, name: 'Bad', url });
      expect(reply.status, url).toBe(400);
      expect(reply.body.error.code).toBe('invalid_request');
    }
    expect(
      (
        await admin('POST', '/destinations', {
          clientId: app.clientId,
          name: 'Bad',
          url: 'https://hooks.example.test/x',
          locationIds: 'nyc-midtown',
        })
      ).status,
    ).toBe(400);
    expect(
      (await admin('POST', '/destinations', { clientId: 'app_unknown', name: 'Bad', url: 'https://hooks.example.test/x' })).status,
    ).toBe(400);
    expect((await admin('PATCH', '/destinations/dst_unknown', { name: 'x' })).status).toBe(400);
    expect((await scanTable(runtime)).length).toBe(before);
  });
});

describe('destinations per application', () => {
  const add = (clientId: string, name: string) =>
    admin('POST', '/destinations', { clientId, name, url: 'https://hooks.example.test/cap', locationIds: ['nyc-midtown'] });
  const destinationsOf = async (clientId: string) =>
    (await scanTable(runtime)).filter((item) => String(item.PK).startsWith('DEST#') && item.SK === 'DEST' && item.clientId === clientId);

  it(`takes at most ${DESTINATIONS_PER_APPLICATION} even when every create comes at once; the next is a 409 naming the limit, writes and mails nothing`, async () => {
    const app = (await newApp({ ownerEmail: 'cap-owner@example.test' })).body.app;
    const mailBefore = (await sentMail(runtime)).length;
    const replies = await Promise.all(Array.from({ length: DESTINATIONS_PER_APPLICATION + 5 }, (_, i) => add(app.clientId, `Hook ${i}`)));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(DESTINATIONS_PER_APPLICATION);
    const refused = replies.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: 'conflict', status: 409 });
      expect(r.body.error.message).toBe(
        `application ${app.clientId} has ${DESTINATIONS_PER_APPLICATION} destinations, the limit per application: remove one before adding another`,
      );
    }
    expect(await destinationsOf(app.clientId)).toHaveLength(DESTINATIONS_PER_APPLICATION);
    // One configuration mail per create that was made (contract 6.5 rule 8), none for a refusal.
    const mail = (await sentMail(runtime)).slice(mailBefore).filter((m) => m.to.includes('cap-owner@example.test'));
    expect(mail).toHaveLength(DESTINATIONS_PER_APPLICATION);
    // The operator sees the count beside the limit.
    expect((await admin('GET', `/apps/${app.clientId}`)).body.app).toMatchObject({
      destinationCount: DESTINATIONS_PER_APPLICATION,
      destinationLimit: DESTINATIONS_PER_APPLICATION,
    });

    // A removal frees a place, once: a second removal of the same destination frees none.
    const [first] = replies.filter((r) => r.status === 201);
    expect((await admin('DELETE', `/destinations/${first!.body.destination.destinationId}`)).status).toBe(204);
    expect((await admin('DELETE', `/destinations/${first!.body.destination.destinationId}`)).status).toBe(404);
    const again = await Promise.all([add(app.clientId, 'Replacement'), add(app.clientId, 'One too many')]);
    expect(again.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await destinationsOf(app.clientId)).toHaveLength(DESTINATIONS_PER_APPLICATION);
  });

  it("counts without reading the application's destinations: a create reads and writes the same few items however many it has", async () => {
    const app = (await newApp()).body.app;
    const commandsOf = async (name: string) => {
      const seen: string[] = [];
      const reply = await watchingDynamo(
        runtime,
        (i) =>
          seen.push(i.KeyConditionExpression ? `Query ${i.IndexName ?? 'table'}` : i.Key || i.Item || i.RequestItems ? 'item' : 'Scan'),
        () => add(app.clientId, name),
      );
      expect(reply.status).toBe(201);
      return seen;
    };
    const firstCreate = await commandsOf('First');
    for (let i = 0; i < DESTINATIONS_PER_APPLICATION - 2; i++) expect((await add(app.clientId, `Filler ${i}`)).status).toBe(201);
    const lastCreate = await commandsOf('Last');
    expect(lastCreate.filter((c) => c === 'Scan' || c === 'Query GSI1')).toEqual([]);
    expect(lastCreate).toEqual(firstCreate);
  });
});

describe("a destination's deliveries", () => {
  it('pages its history newest first, by status and since a time, and counts the last 24 hours by hour', async () => {
    const holder = { secret: '' };
    const receiver = await startReceiver({ secret: () => holder.secret });
    receivers.push(receiver);
    const app = (await newApp()).body.app;
    const added = (await admin('POST', '/destinations', { clientId: app.clientId, name: 'History', url: receiver.url })).body;
    holder.secret = added.signingSecret;
    const id = added.destination.destinationId as string;
    const tests: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { deliveryId } = (await admin('POST', `/destinations/${id}/test`, { locationId: 'nyc-midtown' })).body;
      await waitForStatus(runtime, deliveryId, ['SUCCEEDED']);
      tests.push(deliveryId);
    }
    const all = await admin('GET', `/destinations/${id}/deliveries`);
    expect(all.status).toBe(200);
    expect(all.body.deliveries.map((d: { deliveryId: string }) => d.deliveryId).sort()).toEqual([...tests].sort());
    expect(all.body.deliveries[0]).toMatchObject({ status: 'SUCCEEDED', attempts: 1, nextAttemptAt: null, errorCode: null });
    expect(JSON.stringify(all.body)).not.toContain(holder.secret);

    const first = await admin('GET', `/destinations/${id}/deliveries?limit=2`);
    expect(first.body.deliveries).toHaveLength(2);
    const second = await admin('GET', `/destinations/${id}/deliveries?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect([...first.body.deliveries, ...second.body.deliveries].map((d: { deliveryId: string }) => d.deliveryId)).toEqual(
      all.body.deliveries.map((d: { deliveryId: string }) => d.deliveryId),
    );
    expect((await admin('GET', `/destinations/${id}/deliveries?status=FAILED`)).body.deliveries).toEqual([]);
    expect((await admin('GET', `/destinations/${id}/deliveries?since=2099-01-01T00:00:00Z`)).body.deliveries).toEqual([]);
    for (const bad of ['status=LOST', 'since=yesterday', 'limit=0'])
      expect((await admin('GET', `/destinations/${id}/deliveries?${bad}`)).status, bad).toBe(400);
    expect((await admin('GET', '/destinations/dst_00000000000000000000/deliveries')).status).toBe(404);

    // Each delivery's story, by its id and by its event's (a Send test's event names one delivery); never a body.
    const story = await admin('GET', `/deliveries/${tests[0]}`);
    expect(story.status).toBe(200);
    expect(story.body.delivery).toMatchObject({ deliveryId: tests[0], destinationId: id, destinationName: 'History', status: 'SUCCEEDED' });
    expect(story.body.delivery.timeline).toEqual([
      { kind: 'attempt', attempt: 1, at: expect.any(String), status: 'SUCCEEDED', code: 'http_200', ms: expect.any(Number), next: null },
    ]);
    expect(JSON.stringify(story.body)).not.toContain('receiver body');
    const byEvent = await admin('GET', `/deliveries?eventId=${story.body.delivery.eventId}`);
    expect(byEvent.body).toEqual({ deliveries: [story.body.delivery] });
    for (const unknown of [`/deliveries/dlv_${'0'.repeat(32)}`, `/deliveries?eventId=evt_${'0'.repeat(32)}`])
      expect(await admin('GET', unknown), unknown).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    for (const bad of ['/deliveries', '/deliveries?eventId=dlv_1', '/deliveries/evt_1'])
      expect(await admin('GET', bad), bad).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    expect((await admin('GET', `/deliveries/${tests[0]}`, undefined, { key: null })).status).toBe(403);

    const hourly = await admin('GET', `/destinations/${id}/hourly`);
    expect(hourly.body.hours).toHaveLength(24);
    expect(hourly.body.truncated).toBe(false);
    expect(hourly.body.hours.reduce((n: number, x: { counts: { SUCCEEDED?: number } }) => n + (x.counts.SUCCEEDED ?? 0), 0)).toBe(3);
    expect(hourly.body.hours.at(-1).counts).toEqual({ SUCCEEDED: 3 });
  });
});

describe('audit trail', () => {
  it('records each change with who, what, when and the request id, never a secret; lists it newest first, by application or destination, in pages', async () => {
    const receiver = await startReceiver({ secret: () => '' });
    receivers.push(receiver);
    const created = (await newApp()).body;
    const clientId = created.app.clientId as string;
    const added = (await admin('POST', '/destinations', { clientId, name: 'Audited', url: receiver.url })).body;
    const id = added.destination.destinationId as string;
    const rotated = (await admin('POST', `/destinations/${id}/rotate-secret`, {})).body;
    await admin('POST', `/destinations/${id}/disable`, {});
    // Refused: nothing changed, nothing recorded.
    expect((await admin('POST', `/destinations/${id}/test`, { locationId: 'nyc-midtown' })).status).toBe(409);
    expect((await admin('POST', '/apps', { groupId: 'demo-group', name: '', scopes: [] })).status).toBe(400);
    expect((await admin('DELETE', `/destinations/${id}`)).status).toBe(204);

    const ofDestination = await admin('GET', `/audit?destinationId=${id}`);
    expect(ofDestination.status).toBe(200);
    expect(ofDestination.body.entries.map((e: { operation: string }) => e.operation)).toEqual([
      'removeDestination',
      'disableDestination',
      'rotateSecret',
      'addDestination',
    ]);
    for (const entry of ofDestination.body.entries) {
      expect(entry).toMatchObject({ actor: 'local-admin-key', clientId, destinationId: id, requestId: expect.stringMatching(/.+/) });
      expect(Date.parse(entry.at)).not.toBeNaN();
    }
    const ofApp = await admin('GET', `/audit?clientId=${clientId}`);
    expect(ofApp.body.entries.map((e: { operation: string }) => e.operation).at(-1)).toBe('createApp');
    expect(ofApp.body.entries).toHaveLength(5);
    const trail = JSON.stringify([ofDestination.body, ofApp.body]);
    for (const secret of [created.clientSecret, added.signingSecret, rotated.signingSecret]) expect(trail).not.toContain(secret);

    // Pages of two: the same entries, each once.
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await admin('GET', `/audit?clientId=${clientId}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      paged.push(...page.body.entries.map((e: { requestId: string }) => e.requestId));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(paged).toEqual(ofApp.body.entries.map((e: { requestId: string }) => e.requestId));
    // A cursor of another filter, a limit out of range and an id that breaks the id rule are refused.
    const other = await admin('GET', `/audit?limit=1`);
    expect(other.body.nextCursor).toEqual(expect.any(String));
    expect((await admin('GET', `/audit?clientId=${clientId}&cursor=${encodeURIComponent(other.body.nextCursor)}`)).status).toBe(400);
    expect((await admin('GET', '/audit?limit=0')).status).toBe(400);
    expect((await admin('GET', '/audit?destinationId=a%2Fb')).status).toBe(400);
  });
});

describe('menus and dead letters', () => {
  it('publishes a menu with PUT, once per revision', async () => {
    const menu = sampleMenu({ price: 31 });
    const first = await admin('PUT', '/menus/demo-group/london-soho', menu);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ newRevision: true, eventId: menuEventId('demo-group', 'london-soho', first.body.revision) });
    const again = await admin('PUT', '/menus/demo-group/london-soho', menu);
    expect(again.body).toMatchObject({ revision: first.body.revision, newRevision: false, eventId: null });
    expect((await admin('PUT', '/menus/demo-group/atlantis', menu)).status).toBe(404);
    expect((await admin('PUT', '/menus/demo-group/london-soho', { sections: 'none' })).status).toBe(400);
  });

  it("lists a group's menus by location: revision, last publish, source health, events waiting", async () => {
    const listed = await admin('GET', '/menus?groupId=demo-group');
    expect(listed.status).toBe(200);
    const byId = new Map(listed.body.menus.map((m: { locationId: string }) => [m.locationId, m]));
    // Published by the test before; the others have no menu yet.
    const published = (await admin('PUT', '/menus/demo-group/london-soho', sampleMenu({ price: 31 }))).body;
    expect(byId.get('london-soho')).toMatchObject({
      published: true,
      revision: published.revision,
      sourceHealth: { pos: expect.any(String) },
      pendingEvents: 0,
    });
    expect(byId.get('denver-union')).toMatchObject({ published: false, revision: null, pendingEvents: 0 });
    expect([...byId.keys()]).toEqual(expect.arrayContaining(['nyc-midtown', 'denver-union', 'london-soho', 'sydney-harbour']));
    const page = await admin('GET', '/menus?groupId=demo-group&limit=1');
    expect(page.body.menus).toHaveLength(1);
    expect(page.body.nextCursor).toEqual(expect.any(String));
    expect((await admin('GET', '/menus')).status).toBe(400);
    expect((await admin('GET', '/menus?groupId=atlantis')).status).toBe(400);
  });

  it('lists dead letters and refuses to redrive what is not one', async () => {
    const listed = await admin('GET', '/dead-letters');
    expect(listed.status).toBe(200);
    expect(Array.isArray(listed.body.deadLetters)).toBe(true);
    expect((await admin('GET', '/dead-letters/not-an-id')).status).toBe(400);
    expect((await admin('POST', `/dead-letters/dlv_${'0'.repeat(32)}/redrive`, {})).status).toBe(404);
  });
});

describe('destination URLs are stored canonical', () => {
  const add = (clientId: string, url: string, name = 'Canonical hook') => admin('POST', '/destinations', { clientId, name, url });
  const storedUrl = async (id: string) => (await scanTable(runtime)).find((i) => i.destinationId === id && typeof i.url === 'string')?.url;

  it('stores scheme and host lower-case, the default port dropped, IDN as punycode and IPv4 dotted; the path as sent', async () => {
    dns.set('xn--bcher-kva.example.test', ['127.0.0.1']);
    const app = (await newApp()).body.app;
    const cases: [string, string, string][] = [
      ['HTTPS://Hooks.Example.TEST:443/Hook?A=1', 'https://hooks.example.test/Hook?A=1', 'hooks.example.test'],
      ['https://bücher.example.test/x', 'https://xn--bcher-kva.example.test/x', 'xn--bcher-kva.example.test'],
      ['https://0x01010101:8443/h', 'https://1.1.1.1:8443/h', '1.1.1.1'],
      ['https://hooks.example.test', 'https://hooks.example.test/', 'hooks.example.test'],
    ];
    for (const [sent, canonical, hostname] of cases) {
      const reply = await add(app.clientId, sent);
      expect(reply.status, sent).toBe(201);
      expect(reply.body.destination, sent).toMatchObject({ url: canonical, hostname });
      expect(await storedUrl(reply.body.destination.destinationId), sent).toBe(canonical);
      expect((await admin('GET', `/destinations/${reply.body.destination.destinationId}`)).body.destination.url).toBe(canonical);
    }
  });

  it('refuses port 0, every port below 1024 but 443, and https without its slashes, on create and update, with nothing changed', async () => {
    const app = (await newApp()).body.app;
    const kept = await add(app.clientId, 'https://hooks.example.test:8443/kept');
    expect(kept.status).toBe(201);
    const id = kept.body.destination.destinationId as string;
    const before = await scanTable(runtime);
    const refused: [string, RegExp][] = [
      ['https://1.1.1.1:22/', /url.*port.*22/],
      ['https://1.1.1.1:0/', /url.*port.*\b0\b/],
      ['https://hooks.example.test:80/x', /url.*port.*80/],
      ['https://hooks.example.test:1023/x', /url.*port.*1023/],
      ['https:1.1.1.1/x', /url.*https:\/\//],
      ['https:/hooks.example.test/x', /url.*https:\/\//],
      ['https:///hooks.example.test/x', /url.*https:\/\//],
      ['https:\\\\hooks.example.test\\x', /url.*backslash/],
      ['https://hooks.example.test\\@1.1.1.1/x', /url.*backslash/],
    ];
    for (const [url, message] of refused) {
      for (const reply of [await add(app.clientId, url), await admin('PATCH', `/destinations/${id}`, { url })]) {
        expect(reply.status, url).toBe(400);
        expect(reply.body.error.code, url).toBe('invalid_request');
        expect(reply.body.error.message, url).toMatch(message);
      }
    }
    expectUnchanged(await scanTable(runtime), before);
    expect((await admin('GET', `/destinations/${id}`)).body.destination.url).toBe('https://hooks.example.test:8443/kept');

    // An update is stored canonical too.
    const edited = await admin('PATCH', `/destinations/${id}`, { url: 'HTTPS://HOOKS.EXAMPLE.TEST:443/New' });
    expect(edited.status).toBe(200);
    expect(edited.body.destination).toMatchObject({ url: 'https://hooks.example.test/New', hostname: 'hooks.example.test' });
    expect(await storedUrl(id)).toBe('https://hooks.example.test/New');
  });
});

describe('free text and lists that could mislead', () => {
  /**
   * Each a way to make a name show or mean something else: line breaks, NUL, BEL, C1, bidi overrides and isolates,
   * characters that render as nothing (a name of them passes for blank), a stray joiner, a lone surrogate.
   */
  const HOSTILE: [string, string][] = [
    ['CR LF', 'Bar\r\nBcc: victim@evil.example'],
    ['LF', 'Bar\nsecond line'],
    ['NUL', 'Bar\u0000'],
    ['BEL', 'Bar\u0007'],
    ['tab', 'Bar\tBar'],
    ['ESC', 'Bar\u001b[31m'],
    ['DEL', 'Bar\u007f'],
    ['C1 NEL', 'Bar\u0085'],
    ['line separator', 'Bar\u2028Bar'],
    ['RLO', 'Bar\u202Egpj.exe'],
    ['LRE', '\u202ABar'],
    ['FSI', 'Bar\u2068x\u2069'],
    ['two zero-width spaces', '\u200b\u200b'],
    ['RLM', 'Bar\u200f'],
    ['Arabic letter mark', 'Bar\u061c'],
    ['BOM', '\ufeffBar'],
    ['tag characters', 'Bar\u{e0041}\u{e0042}'],
    ['Hangul filler', '\u3164'],
    ['ZWJ at the start', '\u200dBar'],
    ['lone high surrogate', 'Bar\ud800'],
    ['lone low surrogate', '\udc00Bar'],
  ];

  it('refuses hostile application names with a 400 naming the field, and creates nothing', async () => {
    const before = await scanTable(runtime);
    for (const [what, name] of HOSTILE) {
      const reply = await newApp({ name });
      expect(reply.status, what).toBe(400);
      expect(reply.body.error.code, what).toBe('invalid_request');
      expect(reply.body.error.message, what).toMatch(/^Field name must not contain/);
    }
    expectUnchanged(await scanTable(runtime), before);
  });

  it('refuses hostile destination names on create and on update, with nothing changed', async () => {
    const app = (await newApp()).body.app;
    const kept = await admin('POST', '/destinations', {
      clientId: app.clientId,
      name: 'Kept name',
      url: 'https://hooks.example.test/kept',
    });
    expect(kept.status).toBe(201);
    const id = kept.body.destination.destinationId as string;
    const before = await scanTable(runtime);
    const mailBefore = (await sentMail(runtime)).length;
    for (const [what, name] of HOSTILE) {
      const created = await admin('POST', '/destinations', { clientId: app.clientId, name, url: 'https://hooks.example.test/x' });
      const edited = await admin('PATCH', `/destinations/${id}`, { name });
      for (const reply of [created, edited]) {
        expect(reply.status, what).toBe(400);
        expect(reply.body.error.message, what).toMatch(/^Field name must not contain/);
      }
    }
    expectUnchanged(await scanTable(runtime), before);
    expect((await admin('GET', `/destinations/${id}`)).body.destination.name).toBe('Kept name');
    expect((await sentMail(runtime)).length).toBe(mailBefore);
  });

  it('still takes names in any script, with accents, emoji and right-to-left text', async () => {
    for (const name of ['Café Zürich – Bar 😀', 'بار الشاطئ', 'バー', 'Spaces  inside  kept', 'می\u200cخواهم', 'Bar 👨\u200d👩\u200d👧']) {
      const reply = await newApp({ name: `  ${name} ` });
      expect(reply.status, name).toBe(201);
      expect(reply.body.app.name).toBe(name);
    }
  });

  it('stores names NFC: a letter and its combining accent as one character', async () => {
    const reply = await newApp({ name: 'Cafe\u0301' });
    expect(reply.status).toBe(201);
    expect(reply.body.app.name).toBe('Caf\u00e9');
    expect((await admin('GET', `/apps/${reply.body.app.clientId}`)).body.app.name).toBe('Caf\u00e9');
  });

  it('refuses a repeated id in allowedLocationIds with a 400 naming the field, and creates nothing', async () => {
    const before = await scanTable(runtime);
    const reply = await newApp({ allowedLocationIds: ['nyc-midtown', 'london-soho', 'nyc-midtown'] });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('invalid_request');
    expect(reply.body.error.message).toMatch(/^Field allowedLocationIds must not repeat a location/);
    expectUnchanged(await scanTable(runtime), before);
  });
});

describe('routing', () => {
  it('answers unknown paths with 404, wrong methods with 405 and Allow, and a body where none is taken with 400', async () => {
    expect((await admin('GET', '/nothing-here')).status).toBe(404);
    const wrong = await admin('PUT', '/apps', {});
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, POST');
    const withBody = await admin('DELETE', '/destinations/dst_unknown', undefined, { raw: '{}' });
    expect(withBody.status).toBe(400);
    expect(withBody.body.error.message).toMatch(/takes no body/);
    expect((await admin('POST', '/dead-letters/redrive', { all: true })).status).toBe(400);
  });
});

describe('admin lists page', () => {
  it('walks the applications of a group in pages of `limit`, each once, and refuses a cursor it did not issue for that list and filter', async () => {
    await runtime.deps.store.groups.put({ groupId: 'pager-group', name: 'Pager', createdAt: new Date().toISOString() });
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await newApp({ groupId: 'pager-group', name: `Pager ${i}` })).body.app.clientId);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await admin('GET', `/apps?groupId=pager-group&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.apps.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.apps.map((a: { clientId: string }) => a.clientId));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor && pages < 100);
    expect(seen.sort()).toEqual([...created].sort());
    expect(pages).toBeGreaterThanOrEqual(3);

    const first = await admin('GET', '/apps?groupId=pager-group&limit=2');
    const issued: string = first.body.nextCursor;
    for (const [path, bad] of [
      ['/apps?groupId=pager-group', `${issued.slice(0, -2)}AA`],
      ['/apps?groupId=demo-group', issued],
      ['/destinations', issued],
      ['/dead-letters', issued],
    ] as const) {
      const refused = await admin('GET', `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(bad)}`);
      expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_request']);
    }
    for (const limit of ['0', '1001', 'x']) expect((await admin('GET', `/dead-letters?limit=${limit}`)).status).toBe(400);
  });
});
