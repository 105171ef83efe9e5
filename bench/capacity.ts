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
      const consumed = (result.output as { ConsumedCapacity?: Consumed | Consumed[] }).ConsumedCapacity;
      const units = [consumed ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
      if (/^(Get|BatchGet|Query|Scan)/.test(String(context.commandName))) totals.readUnits += units;
      else totals.writeUnits += units;
      return result;
    },
    { step: 'initialize', name },
  );
  return totals;
}

/** What happened between two readings, per request. */
export const perRequest = (before: Capacity, after: Capacity, requests: number): Capacity => ({
  calls: (after.calls - before.calls) / requests,
  readUnits: (after.readUnits - before.readUnits) / requests,
  writeUnits: (after.writeUnits - before.writeUnits) / requests,
});
