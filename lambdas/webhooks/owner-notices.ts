import { DAY_MS } from '#contract/business-date';
import { count } from '#platform/observability';
import { lastOutcome, type Delivery } from './deliveries.js';
import type { Destination } from './destinations.js';
import type { MessagingDeps } from './deps.js';
import { MENU_UPDATED } from './events.js';

/**
 * Failure notices to an application's owner (operational, unlike the configuration notices of contract 6.5 rule 8,
 * which stay exactly as the contract has them): one when a destination starts dead-lettering production events, at
 * most one a day per destination, and one when a production delivery to it succeeds again. Test deliveries never
 * count (Send test stays silent). Like every owner mail: queued in the outbox, sent by the sweeper, never a secret or
 * the full URL (only the safe hostname: 6.5 rules 6 and 9). Ops see the same as metrics.
 */
export const FAILURE_NOTICE_GAP_MS = DAY_MS;

/** A production event (a menu change); test deliveries never count. */
export const isProduction = (d: Pick<Delivery, 'eventType'>) => d.eventType === MENU_UPDATED;

/** After a production delivery was dead-lettered: the owner is told, unless they were told in the last day. */
export async function noticeDeadLetter(deps: MessagingDeps, d: Delivery): Promise<void> {
  if (!isProduction(d)) return;
  await quietly(deps, 'failing', d, async () => {
    const now = deps.clock.now();
    if (!(await deps.store.destinations.noteFailing(d.destinationId, now, FAILURE_NOTICE_GAP_MS))) return;
    count(deps, 'DestinationFailingNotified');
    const [destination, to] = await Promise.all([deps.store.destinations.get(d.destinationId), ownerOf(deps, d.clientId)]);
    if (!destination || !to) return;
    await deps.store.mailOutbox.queue(
      `destination-failing#${d.destinationId}#${new Date(now).toISOString()}`,
      failingMail(to, destination, d),
      now,
    );
  });
}

/** After the production success that cleared a failing notice (recordAttempt's `recovered`): the owner is told. */
export async function noticeRecovery(deps: MessagingDeps, destination: Destination, d: Delivery): Promise<void> {
  await quietly(deps, 'recovered', d, async () => {
    const now = deps.clock.now();
    count(deps, 'DestinationRecoveredNotified');
    const to = await ownerOf(deps, d.clientId);
    if (to)
      await deps.store.mailOutbox.queue(
        `destination-recovered#${d.destinationId}#${new Date(now).toISOString()}`,
        recoveredMail(to, destination, d),
        now,
      );
  });
}

async function ownerOf(deps: MessagingDeps, clientId: string): Promise<{ address: string; appName: string; clientId: string } | null> {
  const app = await deps.store.apps.get(clientId);
  return app?.ownerEmail ? { address: app.ownerEmail, appName: app.name, clientId } : null;
}

/** A notice that cannot be queued never fails the delivery it is about: logged (no address), for ops to see. */
async function quietly(deps: MessagingDeps, kind: string, d: Delivery, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    deps.logger.error('owner failure notice not queued', { kind, destinationId: d.destinationId, error: (err as Error).name });
  }
}

type Owner = NonNullable<Awaited<ReturnType<typeof ownerOf>>>;

function failingMail(owner: Owner, destination: Destination, d: Delivery) {
  return {
    to: owner.address,
    subject: `Customer API: webhook destination "${destination.name}" is failing`,
    text:
      `The webhook destination ${destination.destinationId} ("${destination.name}", host ${destination.hostname}) of application ` +
      `${owner.clientId} (${owner.appName}) did not accept an event after every attempt the delivery policy allows: ` +
      `delivery ${d.deliveryId} of event ${d.eventId} for location ${d.locationId}, last error ${lastOutcome(d).lastErrorCode ?? 'unknown'}.\n` +
      'Events that cannot be delivered are kept as dead letters; once your receiver answers 2xx again, your administrator can ' +
      'send them again. Check the receiver at that host, its TLS certificate and its signature verification.\n' +
      'You get at most one such notice a day for this destination, and one when it receives events again.\n',
  };
}

function recoveredMail(owner: Owner, destination: Destination, d: Delivery) {
  return {
    to: owner.address,
    subject: `Customer API: webhook destination "${destination.name}" receives events again`,
    text:
      `The webhook destination ${destination.destinationId} ("${destination.name}", host ${destination.hostname}) of application ` +
      `${owner.clientId} (${owner.appName}) accepted delivery ${d.deliveryId} of event ${d.eventId}.\n` +
      'Events dead-lettered while it was failing are not sent again by themselves: ask your administrator to redrive them, ' +
      "or reconcile your copy of each location's menu (a conditional GET of its bevq/menu resource).\n",
  };
}
