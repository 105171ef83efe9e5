import { describe, expect, it } from 'vitest';
import { checkScope, memoryDedupe, signTestPayload, verifyWebhook, type WebhookEvent } from '../src/index.js';
import { VECTORS, vector } from './vectors.js';

const headersOf = (v: { timestamp: string; header: string }) => ({ 'x-service-timestamp': v.timestamp, 'x-service-signature': v.header });
const at = (timestamp: string) => () => Number(timestamp) * 1000;

describe('verifyWebhook against the published vectors', () => {
  for (const v of VECTORS) {
    it(`${v.valid ? 'accepts' : `rejects (${v.reason})`} ${v.name}`, async () => {
      const bytes = Uint8Array.from(atob(v.bodyBase64), (c) => c.charCodeAt(0));
      const result = await verifyWebhook(v.secret, headersOf(v), bytes, { now: at(v.timestamp) });
      expect(result.ok ? 'valid' : result.reason).toBe(v.valid ? 'valid' : v.reason);
    });
  }

  it('reads the body as bytes, as an ArrayBuffer, as a Buffer or as the exact text', async () => {
    const v = vector('utf8');
    const bytes = new TextEncoder().encode(v.body);
    for (const body of [bytes, bytes.buffer, Buffer.from(v.bodyBase64, 'base64'), v.body]) {
      expect((await verifyWebhook(v.secret, headersOf(v), body, { now: at(v.timestamp) })).ok).toBe(true);
    }
  });

  it('takes a fetch Headers and any header case', async () => {
    const v = vector('ascii');
    const now = at(v.timestamp);
    expect((await verifyWebhook(v.secret, new Headers(headersOf(v)), v.body, { now })).ok).toBe(true);
    expect(
      (await verifyWebhook(v.secret, { 'X-Service-Timestamp': v.timestamp, 'X-Service-Signature': v.header }, v.body, { now })).ok,
    ).toBe(true);
  });

  it('rejects the bodies a receiver changed although they parse to the same JSON as the signed one', async () => {
    const pairs = [
      ['whitespace', 'near-miss-reserialised-body'],
      ['utf8-decomposed', 'near-miss-nfc-normalised-body'],
      ['utf8-json-escapes', 'near-miss-unescaped-body'],
      ['whitespace-crlf', 'near-miss-lf-body'],
    ] as const;
    for (const [signed, changed] of pairs) {
      const [a, b] = [vector(signed), vector(changed)];
      expect(a.body).not.toBe(b.body);
      if (signed !== 'utf8-decomposed') expect(JSON.parse(b.body)).toEqual(JSON.parse(a.body));
      else expect(b.body).toBe(a.body.normalize('NFC'));
      expect(b.header).toBe(a.expected);
    }
  });

  it('rejects a stale or future timestamp beyond the tolerance, and a missing or malformed header, with its reason', async () => {
    const v = vector('ascii');
    const ts = Number(v.timestamp);
    const reason = async (headers: Record<string, string>, nowSeconds = ts, toleranceSeconds?: number) => {
      const result = await verifyWebhook(v.secret, headers, v.body, { now: () => nowSeconds * 1000, toleranceSeconds });
      return result.ok ? 'valid' : result.reason;
    };
    expect([await reason(headersOf(v), ts - 300), await reason(headersOf(v), ts + 300)]).toEqual(['valid', 'valid']);
    expect([await reason(headersOf(v), ts - 301), await reason(headersOf(v), ts + 301)]).toEqual([
      'timestamp_outside_tolerance',
      'timestamp_outside_tolerance',
    ]);
    expect(await reason(headersOf(v), ts + 60, 30)).toBe('timestamp_outside_tolerance');
    expect(await reason({ 'x-service-timestamp': v.timestamp })).toBe('missing_signature');
    expect(await reason({ 'x-service-signature': v.header })).toBe('missing_timestamp');
    expect(await reason({ 'x-service-signature': v.header, 'x-service-timestamp': `${v.timestamp}.0` })).toBe('malformed_timestamp');
    expect(await reason({ ...headersOf(v), 'x-service-event-id': 'evt_other' })).toBe('event_id_mismatch');
    const array = await signTestPayload(v.secret, [] as never, { timestamp: ts });
    expect(await verifyWebhook(v.secret, array.headers, array.body, { now: at(v.timestamp) })).toEqual({
      ok: false,
      reason: 'malformed_payload',
    });
  });
});

const EVENT: WebhookEvent = {
  eventId: 'evt_1',
  eventType: 'bevq.menu.updated',
  occurredAt: '2026-11-22T12:00:00.000Z',
  groupId: 'demo-group',
  locationId: 'denver-union',
  revision: 'r1',
  resource: '/v1/demo-group/denver-union/bevq/menu',
};

describe('signTestPayload', () => {
  it('signs as the service does: verifyWebhook accepts it, and the same inputs give a vector its expected signature', async () => {
    const signed = await signTestPayload('s3cret', EVENT, { timestamp: 1_700_000_000 });
    expect(signed.headers['x-service-event-id']).toBe(EVENT.eventId);
    expect(await verifyWebhook('s3cret', signed.headers, signed.body, { now: () => 1_700_000_000_000 })).toEqual({
      ok: true,
      event: EVENT,
    });
    expect(await verifyWebhook('other', signed.headers, signed.body, { now: () => 1_700_000_000_000 })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    const v = vector('ascii');
    const again = await signTestPayload(v.secret, JSON.parse(v.body) as WebhookEvent, { timestamp: Number(v.timestamp) });
    expect([again.body, again.headers['x-service-signature']]).toEqual([v.body, v.expected]);
  });

  it('signs a text payload as the exact text: every vector, whitespace and escapes kept, gets its expected signature', async () => {
    // Every vector whose body is text (UTF-8 that round-trips); the JSON parse of some would change their bytes.
    const texts = VECTORS.filter((v) => Buffer.from(v.body, 'utf8').toString('base64') === v.bodyBase64);
    expect(texts.filter((v) => JSON.stringify(JSON.parse(v.body)) !== v.body).length).toBeGreaterThan(0);
    for (const v of texts) {
      const signed = await signTestPayload(v.secret, v.body, { timestamp: Number(v.timestamp) });
      expect(signed.headers['x-service-signature'], v.name).toBe(v.expected);
    }
  });
});

describe('checkScope', () => {
  it('accepts the expected group and location with its menu path, and names what else differs', () => {
    const scope = { groupId: 'demo-group', locationIds: ['denver-union'] };
    expect(checkScope(EVENT, scope)).toEqual({ ok: true });
    expect(checkScope(EVENT, { groupId: 'demo-group' })).toEqual({ ok: true });
    const reasons = [
      { ...EVENT, eventType: 'bevq.menu.deleted' as WebhookEvent['eventType'] },
      { ...EVENT, eventId: '' },
      { ...EVENT, groupId: 'other-group', resource: '/v1/other-group/denver-union/bevq/menu' },
      { ...EVENT, locationId: 'nyc-midtown', resource: '/v1/demo-group/nyc-midtown/bevq/menu' },
      { ...EVENT, resource: 'https://evil.example/v1/demo-group/denver-union/bevq/menu' },
      { ...EVENT, resource: '/v1/demo-group/denver-union/bevq/menu/../../../other' },
    ].map((event) => checkScope(event, scope));
    expect(reasons).toEqual(
      ['event_type', 'event_id', 'group', 'location', 'resource', 'resource'].map((reason) => ({ ok: false, reason })),
    );
  });
});

describe('memoryDedupe', () => {
  it('claims an id once until released or expired, and keeps at most maxEntries, the oldest going first', async () => {
    let now = 0;
    const dedupe = memoryDedupe({ maxEntries: 2, ttlMs: 1_000, now: () => now });
    expect([await dedupe.claim('a'), await dedupe.claim('a')]).toEqual([true, false]);
    await dedupe.release('a');
    expect(await dedupe.claim('a')).toBe(true);
    now = 1_000;
    expect(await dedupe.claim('a')).toBe(true); // expired
    expect([await dedupe.claim('b'), await dedupe.claim('c')]).toEqual([true, true]);
    expect([await dedupe.claim('c'), await dedupe.claim('b')]).toEqual([false, false]);
    expect(await dedupe.claim('a')).toBe(true); // evicted by c, the oldest of the three
  });
});
