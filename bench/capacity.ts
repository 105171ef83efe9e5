import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** Live totals of the calls a DynamoDB client made and the capacity they consumed. */
export type Capacity = { calls: number; readUnits: number; writeUnits: number };

type Consumed = { CapacityUnits?: number };

/**
 * Counts every call of `client` and asks each for its consumed capacity
 * (ReturnConsumedCapacity TOTAL), the units DynamoDB bills: read units for
 * GetItem, BatchGetItem, Query and Scan, write units for the rest.
 */
export function meterCapacity(client: DynamoDBClient, name = 'benchCapacity'): Capacity {
  const totals: Capacity = { calls: 0, readUnits: 0, writeUnits: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      totals.calls++;
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const { readUnits, writeUnits } = consumedUnits(String(context.commandName), result.output);
      totals.readUnits += readUnits;
      totals.writeUnits += writeUnits;
      return result;
    },
    { step: 'initialize', name },
  );
  return totals;
}

/** The units a call's output reports (it must have asked with ReturnConsumedCapacity): read units for reads, write units for the rest. */
export function consumedUnits(commandName: string, output: unknown): { readUnits: number; writeUnits: number } {
  const consumed = (output as { ConsumedCapacity?: Consumed | Consumed[] }).ConsumedCapacity;
  const units = [consumed ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
  return /^(Get|BatchGet|Query|Scan)/.test(commandName) ? { readUnits: units, writeUnits: 0 } : { readUnits: 0, writeUnits: units };
}

/** What happened between two readings, per request. */
export const perRequest = (before: Capacity, after: Capacity, requests: number): Capacity => ({
  calls: (after.calls - before.calls) / requests,
  readUnits: (after.readUnits - before.readUnits) / requests,
  writeUnits: (after.writeUnits - before.writeUnits) / requests,
});

/** What a partition key took over the requests metered: read and write units. */
export type KeyLoad = { readUnits: number; writeUnits: number };
/** Live totals by partition key (`PK`, or an index's partition key value), and the sequential round trips the calls made. */
export type KeyCapacity = Capacity & { trips: number; byKey: Map<string, KeyLoad> };

type Attribute = Record<string, unknown>;
const PK = 'PK';
/** A key attribute as the document client passes it (a string) or as the low-level client does (`{ S }`). */
const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : ((value as { S?: string } | undefined)?.S ?? undefined);

/** The partition key value of a call: the key it names, the item it writes, or the value its KeyConditionExpression sets first. */
function partitionKeyOf(input: Record<string, any>): string | undefined {
  const named = text(input.Key?.[PK]) ?? text(input.Item?.[PK]);
  if (named) return named;
  const condition = /=\s*(:\w+)/.exec(String(input.KeyConditionExpression ?? ''));
  return condition ? text(input.ExpressionAttributeValues?.[condition[1]!]) : undefined;
}

/**
 * Like `meterCapacity`, and besides: the units each partition key took (a BatchGetItem's units shared between its
 * items by their size, each rounded up to 4 KB as DynamoDB rounds them), and the sequential round trips, counted as
 * the calls that start while no other call of the client is in flight (calls made side by side count once).
 */
export function meterKeys(client: DynamoDBClient, name = 'benchKeys'): KeyCapacity {
  const totals: KeyCapacity = { calls: 0, readUnits: 0, writeUnits: 0, trips: 0, byKey: new Map() };
  let inFlight = 0;
  const add = (key: string, load: KeyLoad) => {
    const was = totals.byKey.get(key) ?? { readUnits: 0, writeUnits: 0 };
    totals.byKey.set(key, { readUnits: was.readUnits + load.readUnits, writeUnits: was.writeUnits + load.writeUnits });
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      totals.calls++;
      if (inFlight++ === 0) totals.trips++;
      const input = args.input as Record<string, any>;
      input.ReturnConsumedCapacity = 'TOTAL';
      try {
        const result = await next(args);
        const command = String(context.commandName);
        const used = consumedUnits(command, result.output);
        totals.readUnits += used.readUnits;
        totals.writeUnits += used.writeUnits;
        const responses = Object.values((result.output as { Responses?: Record<string, Record<string, Attribute>[]> }).Responses ?? {})[0];
        const keyOf = (item: Record<string, Attribute>) => text(item[PK]);
        if (responses?.length && responses.every(keyOf)) {
          // Each item's units as DynamoDB rounds them (4 KB), from its size as JSON: near enough to share the batch's units.
          const shares = responses.map((item) => Math.ceil(Buffer.byteLength(JSON.stringify(item)) / 4096));
          const whole = shares.reduce((a, b) => a + b, 0);
          responses.forEach((item, i) => add(keyOf(item)!, { readUnits: (used.readUnits * shares[i]!) / whole, writeUnits: 0 }));
        } else if (input.RequestItems) {
          // A projection without the key (or nothing found): the units shared evenly between the keys asked for.
          const asked = (Object.values(input.RequestItems as Record<string, { Keys: Record<string, Attribute>[] }>)[0]?.Keys ?? []).map(
            (k) => text(k[PK]) ?? '(batch)',
          );
          for (const key of asked) add(key, { readUnits: used.readUnits / asked.length, writeUnits: 0 });
        } else {
          add(partitionKeyOf(input) ?? `(${command})`, used);
        }
        return result;
      } finally {
        inFlight--;
      }
    },
    { step: 'initialize', name },
  );
  return totals;
}
