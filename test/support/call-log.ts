import { randomUUID } from 'node:crypto';
import type { LocalRuntime } from '#local/runtime';

/**
 * One DynamoDB call the service made: its command, and where its start and
 * its end fall in the order of every start and end logged (no time is read).
 * An end not seen yet is Infinity.
 */
export type LoggedCall = { name: string; start: number; end: number; partitions: string[] };

/** An attribute value as the document client or the low-level client hands it on. */
const text = (value: unknown): string =>
  typeof value === 'string' ? value : value && typeof value === 'object' && 'S' in value ? String(value.S) : '';

/** The partitions a call names: an item's key, a batch's keys, a Query's `:pk`. */
function partitionsOf(input: Record<string, any>): string[] {
  if (input.Key) return [text(input.Key.PK)];
  if (input.Item) return [text(input.Item.PK)];
  if (input.RequestItems) {
    return Object.values(input.RequestItems as Record<string, any>).flatMap((r) =>
      Array.isArray(r) ? r.map((w) => text((w.PutRequest?.Item ?? w.DeleteRequest?.Key)?.PK)) : (r.Keys ?? []).map((k: any) => text(k.PK)),
    );
  }
  if (input.KeyConditionExpression) return [text(input.ExpressionAttributeValues?.[':pk'])];
  return [];
}

/**
 * Logs the DynamoDB calls of every function of the runtime: a middleware on
 * the runtime's client is repeated on each function's own clients
 * (local/function-deps.ts), so it sees every call whatever client made it.
 */
export function dynamoCallLog(runtime: LocalRuntime) {
  const name = `callLog-${randomUUID()}`;
  let order = 0;
  let log: LoggedCall[] | null = null;
  runtime.dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      if (!log) return next(args);
      const call = {
        name: String(context.commandName).replace(/Command$/, ''),
        start: order++,
        end: Infinity,
        partitions: partitionsOf(args.input as Record<string, any>),
      };
      log.push(call);
      try {
        return await next(args);
      } finally {
        call.end = order++;
      }
    },
    { step: 'initialize', name },
  );
  return {
    /** The calls made while `run` ran, in the order they started. */
    async during(run: () => Promise<unknown>): Promise<LoggedCall[]> {
      const calls: LoggedCall[] = [];
      log = calls;
      try {
        await run();
      } finally {
        log = null;
      }
      return calls;
    },
    stop: () => void runtime.dynamo.middlewareStack.remove(name),
  };
}

/**
 * Sequential round trips (waves) in a log: a call that starts after some call
 * of the current wave has ended could depend on its answer, so it opens the
 * next wave; calls sent together all start before any of them ends. A slow
 * call (the counter's write) does not hide the wave after it: the wave closes
 * at its first end. Exact from the order alone, since an answer always takes
 * an I/O turn and calls sent together start within one.
 */
export function roundTrips(calls: readonly LoggedCall[]): number {
  let trips = 0;
  let firstEnd = -Infinity;
  for (const c of [...calls].sort((a, b) => a.start - b.start)) {
    if (c.start > firstEnd) {
      trips++;
      firstEnd = c.end;
    } else {
      firstEnd = Math.min(firstEnd, c.end);
    }
  }
  return trips;
}
