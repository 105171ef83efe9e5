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
