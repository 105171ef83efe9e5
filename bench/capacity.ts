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
/**
 * Live totals by partition key (`PK`, or an index's partition key value), by item (`itemId`: DynamoDB can spread a
 * partition key's items over partitions, never one item), and the sequential round trips the calls made.
 */
export type KeyCapacity = Capacity & { trips: number; byKey: Map<string, KeyLoad>; byItem: Map<string, KeyLoad> };

type Attribute = Record<string, unknown>;
const PK = 'PK';
const SK = 'SK';
/** One item's identity: its partition and sort key (a Query that found nothing: its partition key's range). */
const itemId = (pk: string, sk: string) => `${pk}\n${sk}`;
export const itemKeys = (id: string): [pk: string, sk: string] => id.split('\n') as [string, string];
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
 * Like `meterCapacity`, and besides: the units each partition key and each item took (a batch's or a Query's units
 * shared between its items by their size, each rounded up to 4 KB as DynamoDB rounds them), and the sequential round trips, counted as
 * the calls that start while no other call of the client is in flight (calls made side by side count once).
 */
export function meterKeys(client: DynamoDBClient, name = 'benchKeys'): KeyCapacity {
  const totals: KeyCapacity = { calls: 0, readUnits: 0, writeUnits: 0, trips: 0, byKey: new Map(), byItem: new Map() };
  let inFlight = 0;
  const addTo = (map: Map<string, KeyLoad>, key: string, load: KeyLoad) => {
    const was = map.get(key) ?? { readUnits: 0, writeUnits: 0 };
    map.set(key, { readUnits: was.readUnits + load.readUnits, writeUnits: was.writeUnits + load.writeUnits });
  };
  /** A call's units on its items, shared by their size; each item's units add to its partition key's too. */
  const add = (items: { pk: string; sk: string; bytes: number }[], load: KeyLoad) => {
    const shares = items.map((item) => Math.ceil(item.bytes / 4096));
    const whole = shares.reduce((a, b) => a + b, 0);
    items.forEach((item, i) => {
      const share = { readUnits: (load.readUnits * shares[i]!) / whole, writeUnits: (load.writeUnits * shares[i]!) / whole };
      addTo(totals.byKey, item.pk, share);
      addTo(totals.byItem, itemId(item.pk, item.sk), share);
    });
  };
  // Each item's units as DynamoDB rounds them (4 KB), from its size as JSON: near enough to share a call's units.
  const found = (item: Record<string, Attribute>) => ({
    pk: text(item[PK])!,
    sk: text(item[SK]) ?? '',
    bytes: Buffer.byteLength(JSON.stringify(item)),
  });
  const asked = (key: Record<string, Attribute>) => ({ pk: text(key[PK]) ?? '(batch)', sk: text(key[SK]) ?? '', bytes: 1 });
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
        const output = result.output as { Responses?: Record<string, Record<string, Attribute>[]>; Items?: Record<string, Attribute>[] };
        const items = Object.values(output.Responses ?? {})[0] ?? output.Items;
        // An index's partitions are its own: a Query of one counts on the index key it names.
        if (items?.length && !input.IndexName && items.every((item) => text(item[PK]))) {
          add(items.map(found), used);
        } else if (input.RequestItems) {
          // A projection without the key (or nothing found): the units shared evenly between the keys asked for.
          const batch = Object.values(input.RequestItems as Record<string, unknown>)[0];
          const keys = Array.isArray(batch)
            ? batch.map((w: { PutRequest?: { Item: Record<string, Attribute> }; DeleteRequest?: { Key: Record<string, Attribute> } }) =>
                asked(w.PutRequest?.Item ?? w.DeleteRequest!.Key),
              )
            : ((batch as { Keys?: Record<string, Attribute>[] }).Keys ?? []).map(asked);
          add(keys, used);
        } else {
          const key = input.Key ?? input.Item;
          const pk = partitionKeyOf(input) ?? `(${command})`;
          add([{ pk, sk: key ? (text(key[SK]) ?? '') : '(range)', bytes: 1 }], used);
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
