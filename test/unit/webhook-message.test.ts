import { describe, expect, it } from 'vitest';
import { parseDeliveryMessage, parseQueueMessage } from '#lambdas/webhooks/messages';

const id = `dlv_${'a'.repeat(32)}`;

describe('delivery messages', () => {
  it('reads a message with its hints, and one sent before hints existed', () => {
    expect(parseDeliveryMessage(JSON.stringify({ deliveryId: id, redrive: 1, destinationId: 'dst_1', clientId: 'app_1' }))).toEqual({
      deliveryId: id,
      redrive: 1,
      destinationId: 'dst_1',
      clientId: 'app_1',
    });
    expect(parseDeliveryMessage(JSON.stringify({ deliveryId: id, redrive: 0 }))).toEqual({ deliveryId: id, redrive: 0 });
  });

  it('drops hints that are not ids, or come alone, and keeps the message', () => {
    for (const hints of [
      { destinationId: 'dst_1' },
      { destinationId: 'dst 1', clientId: 'app_1' },
      { destinationId: 7, clientId: 'app_1' },
      { destinationId: 'x'.repeat(65), clientId: 'app_1' },
    ]) {
      expect(parseDeliveryMessage(JSON.stringify({ deliveryId: id, redrive: 0, ...hints }))).toEqual({ deliveryId: id, redrive: 0 });
    }
  });

  it('refuses what is not a delivery message', () => {
    for (const body of [
      '',
      'null',
      '{}',
      JSON.stringify({ deliveryId: 'dlv_x', redrive: 0 }),
      JSON.stringify({ deliveryId: id, redrive: -1 }),
    ]) {
      expect(parseDeliveryMessage(body)).toBeNull();
    }
  });
});

describe('queue messages', () => {
  const eventId = `evt_${'b'.repeat(32)}`;
  it('tells a delivery from a fan-out page and a release of held deliveries', () => {
    expect(parseQueueMessage(JSON.stringify({ deliveryId: id, redrive: 2 }))).toEqual({ kind: 'delivery', deliveryId: id, redrive: 2 });
    expect(parseQueueMessage(JSON.stringify({ dispatch: eventId, cursor: '{"PK":"DEST#d"}' }))).toEqual({
      kind: 'dispatch',
      dispatch: eventId,
      cursor: '{"PK":"DEST#d"}',
    });
    expect(parseQueueMessage(JSON.stringify({ release: 'dst_0123456789abcdef0123' }))).toEqual({
      kind: 'release',
      release: 'dst_0123456789abcdef0123',
    });
  });

  it('refuses a page without an event id or a cursor, a release without a destination id, and anything else', () => {
    const bad = [
      '[]',
      JSON.stringify({ dispatch: 'evt_x', cursor: '{}' }),
      JSON.stringify({ dispatch: eventId }),
      JSON.stringify({ dispatch: eventId, cursor: 7 }),
      JSON.stringify({ release: 7 }),
      JSON.stringify({ release: 'dst/../x' }),
      'not json',
    ];
    for (const body of bad) {
      expect(parseQueueMessage(body)).toBeNull();
    }
  });
});
