import { describe, expect, it } from 'vitest';
import { parseDeliveryMessage, parseFanOutMessage, standing } from '#lambdas/webhooks/messages';

const id = `dlv_${'a'.repeat(32)}`;

describe('delivery messages', () => {
  const hints = { destinationId: 'dst_1', clientId: 'app_1' };

  it('reads a message with its hints', () => {
    expect(parseDeliveryMessage(JSON.stringify({ deliveryId: id, redrive: 1, requeue: 2, ...hints }))).toEqual({
      deliveryId: id,
      redrive: 1,
      requeue: 2,
      ...hints,
    });
  });

  it('refuses what is not a delivery message', () => {
    for (const body of [
      '',
      'null',
      '{}',
      JSON.stringify({ deliveryId: 'dlv_x', redrive: 0, ...hints }),
      JSON.stringify({ deliveryId: id, redrive: -1, ...hints }),
      JSON.stringify({ deliveryId: id, redrive: 0, requeue: 1.5, ...hints }),
      JSON.stringify({ deliveryId: id, redrive: 0, ...hints }),
      JSON.stringify({ deliveryId: id, redrive: 0, requeue: 0 }),
      JSON.stringify({ deliveryId: id, redrive: 0, requeue: 0, destinationId: 'dst_1' }),
      JSON.stringify({ deliveryId: id, redrive: 0, requeue: 0, destinationId: 'dst 1', clientId: 'app_1' }),
      JSON.stringify({ deliveryId: id, redrive: 0, requeue: 0, destinationId: 7, clientId: 'app_1' }),
      JSON.stringify({ deliveryId: id, redrive: 0, requeue: 0, destinationId: 'x'.repeat(65), clientId: 'app_1' }),
    ]) {
      expect(parseDeliveryMessage(body)).toBeNull();
    }
  });

  it('stands against its record by the redrive, then by the requeue it was sent for', () => {
    const record = { redrives: 1, requeues: 2 };
    expect(standing({ redrive: 1, requeue: 2 }, record)).toBe('current');
    expect(standing({ redrive: 1, requeue: 1 }, record)).toBe('stale');
    expect(standing({ redrive: 0, requeue: 5 }, record)).toBe('stale');
    expect(standing({ redrive: 1, requeue: 3 }, record)).toBe('early');
    // A redrive's message keeps the record's requeue count: early until the redrive's write lands.
    expect(standing({ redrive: 2, requeue: 2 }, record)).toBe('early');
  });
});

describe('fan-out messages', () => {
  const eventId = `evt_${'b'.repeat(32)}`;
  it('reads a delivery only as a delivery, and a fan-out page or a release only as a fan-out message', () => {
    const delivery = { deliveryId: id, redrive: 2, requeue: 0, destinationId: 'dst_1', clientId: 'app_1' };
    const page = { dispatch: eventId, cursor: '{"PK":"DEST#d"}' };
    const release = { release: 'dst_0123456789abcdef0123' };
    expect(parseDeliveryMessage(JSON.stringify(delivery))).toEqual(delivery);
    expect(parseFanOutMessage(JSON.stringify(page))).toEqual(page);
    expect(parseFanOutMessage(JSON.stringify(release))).toEqual(release);
    // Each queue's consumer refuses the other's messages.
    expect(parseFanOutMessage(JSON.stringify(delivery))).toBeNull();
    expect(parseDeliveryMessage(JSON.stringify(page))).toBeNull();
    expect(parseDeliveryMessage(JSON.stringify(release))).toBeNull();
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
      expect(parseFanOutMessage(body)).toBeNull();
    }
  });
});
