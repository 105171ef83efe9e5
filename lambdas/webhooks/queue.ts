import type { MessagingDeps } from '#platform/messaging-deps';

/**
 * One SQS message per delivery record; the record holds everything else (and
 * no secret). `redrive` is the record's redrive count the message was sent
 * for: a redrive sends its message before the record names it, so a message
 * from a later redrive than the record shows is early, one from an earlier
 * redrive is stale.
 */
export type DeliveryMessage = { deliveryId: string; redrive: number };

/** Sends the delivery's message; returns its id (a redrive makes it the delivery's carrier). */
export async function enqueueDelivery(deps: MessagingDeps, deliveryId: string, redrive: number): Promise<string> {
  const body: DeliveryMessage = { deliveryId, redrive };
  return deps.queue.send(JSON.stringify(body));
}

export function parseDeliveryMessage(body: string): DeliveryMessage | null {
  try {
    const parsed = JSON.parse(body) as Partial<DeliveryMessage>;
    if (typeof parsed.deliveryId !== 'string' || !/^dlv_[0-9a-f]{32}$/.test(parsed.deliveryId)) return null;
    const redrive = parsed.redrive ?? 0;
    return Number.isInteger(redrive) && redrive >= 0 ? { deliveryId: parsed.deliveryId, redrive } : null;
  } catch {
    return null;
  }
}
