import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * fauxqs answers a long poll (WaitTimeSeconds) at once when a message is
 * sent, but to notice messages whose visibility timeout or delay ends it
 * runs `processTimers()` every 20 ms for as long as any receive is waiting.
 * The local event source always has one waiting, so an idle runtime woke
 * 50 times a second. This replaces that interval with one timer set for the
 * next instant anything can become visible (an in-flight message's
 * visibility deadline, a delayed message's delay), re-set whenever a receive,
 * a visibility change or a delayed send moves that instant. Same answers,
 * sooner (at the deadline, not up to 20 ms after), and no wake-ups while
 * nothing is due. Patched once per process, on the pinned fauxqs 1.9.2; if
 * its internals ever differ, the original interval stays (bench: idle wake-ups).
 */
type Internals = {
  pollWaiters: unknown[];
  pollTimer?: NodeJS.Timeout | undefined;
  inflightMessages: Map<string, { visibilityDeadline: number }>;
  delayedMessages: { delayUntil?: number }[];
  fifoDelayed: Map<string, { delayUntil?: number }[]>;
  processTimers(): void;
};

const PATCHED = Symbol.for('customer-api.fauxqs-deadline-timer');
const armedAt = new WeakMap<Internals, { timer: NodeJS.Timeout; at: number }>();

/**
 * fauxqs's queue class is not among the package's exports, so it is loaded by
 * its file: the very module fauxqs's server imports (ESM loads a file once, by
 * its real path).
 */
async function fauxqsQueueClass(): Promise<{ prototype: object } | null> {
  const folder = createRequire(import.meta.url)
    .resolve.paths('fauxqs')
    ?.map((dir) => join(dir, 'fauxqs'))
    .find((dir) => existsSync(join(dir, 'package.json')));
  const file = folder && join(folder, 'dist', 'sqs', 'sqsStore.js');
  if (!file || !existsSync(file)) return null;
  const { SqsQueue } = (await import(pathToFileURL(file).href)) as { SqsQueue?: { prototype: object } };
  return SqsQueue ?? null;
}

export async function patchFauxqsTimers(): Promise<boolean> {
  const SqsQueue = await fauxqsQueueClass();
  if (!SqsQueue) return false;
  const proto = SqsQueue.prototype as unknown as Record<string | symbol, unknown>;
  if (proto[PATCHED]) return true;
  const names = ['startPollTimerIfNeeded', 'dequeue', 'dequeueFifo', 'changeVisibility', 'enqueue', 'processTimers'];
  if (!names.every((name) => typeof proto[name] === 'function')) return false;

  proto.startPollTimerIfNeeded = function (this: Internals) {
    arm(this);
  };
  // Whatever may bring the next deadline forward re-arms the timer while a receive waits.
  for (const name of ['dequeue', 'dequeueFifo', 'changeVisibility', 'enqueue']) {
    const original = proto[name] as (...args: unknown[]) => unknown;
    proto[name] = function (this: Internals, ...args: unknown[]) {
      const result = original.apply(this, args);
      if (this.pollWaiters.length > 0) arm(this);
      return result;
    };
  }
  proto[PATCHED] = true;
  return true;
}

function nextDeadline(queue: Internals): number | undefined {
  let next = Infinity;
  for (const entry of queue.inflightMessages.values()) next = Math.min(next, entry.visibilityDeadline);
  for (const message of queue.delayedMessages) if (message.delayUntil) next = Math.min(next, message.delayUntil);
  for (const group of queue.fifoDelayed.values())
    for (const message of group) if (message.delayUntil) next = Math.min(next, message.delayUntil);
  return next === Infinity ? undefined : next;
}

/** fauxqs clears `pollTimer` (clearInterval) once no receive waits; a timeout is cleared the same way. */
function arm(queue: Internals): void {
  const next = nextDeadline(queue);
  const armed = armedAt.get(queue);
  const live = armed !== undefined && armed.timer === queue.pollTimer;
  if (live && next !== undefined && armed.at <= next) return;
  if (queue.pollTimer) clearTimeout(queue.pollTimer);
  queue.pollTimer = undefined;
  armedAt.delete(queue);
  if (next === undefined || queue.pollWaiters.length === 0) return;
  const timer = setTimeout(
    () => {
      queue.pollTimer = undefined;
      armedAt.delete(queue);
      queue.processTimers(); // moves what is due and answers the waiting receives
      if (queue.pollWaiters.length > 0) arm(queue);
    },
    Math.max(0, next - Date.now()) + 1,
  );
  queue.pollTimer = timer;
  armedAt.set(queue, { timer, at: next });
}
