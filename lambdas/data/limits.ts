import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { ApiError } from '#contract/errors';
import { TABLE_KEYS } from './table.js';

/**
 * DynamoDB's limits on what a request may carry, measured the way DynamoDB
 * measures them, so a write AWS would refuse is refused here first, with one
 * clear error, before anything is sent:
 * - an item holds at most 400 KB = 409,600 bytes: attribute names and string
 *   values in UTF-8 bytes, binary in raw bytes, a number by its significant
 *   digits, 1 byte per boolean or null, 3 bytes per list or map plus 1 per
 *   element (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html,
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-items);
 * - a partition key value is 1 to 2,048 bytes and a sort key value 1 to 1,024,
 *   in the table's key and in every GSI's (Constraints.html#limits-partition-sort-keys);
 *   no key attribute may be an empty string
 *   (https://aws.amazon.com/about-aws/whats-new/2020/05/amazon-dynamodb-now-supports-empty-values-for-non-key-string-and-binary-attributes-in-dynamodb-tables/);
 * - a number has at most 38 significant digits and a magnitude from 1E-130 to
 *   under 1E+126 (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html);
 * - attributes nest at most 32 levels (Constraints.html#limits-attributes).
 * DynamoDB Local, AWS's own engine, refuses exactly past these measures;
 * dynalite counts UTF-16 code units and would never notice a multi-byte item.
 */
export const DYNAMODB_LIMITS = {
  itemBytes: 400 * 1024,
  partitionKeyBytes: 2048,
  sortKeyBytes: 1024,
  significantDigits: 38,
  /** Powers of ten a number's leading digit may have: 1E-130 ≤ |n| < 1E+126. */
  leadingPower: { min: -130, max: 125 },
  nestingLevels: 32,
} as const;

/**
 * What one item may hold of loaded data (a day's schedule, a location's
 * devices, a gzipped body): the rest is room for keys (ids of at most 64
 * characters) and the few attributes the service adds (timestamps, ttl).
 */
export const ITEM_VALUE_BUDGET_BYTES = DYNAMODB_LIMITS.itemBytes - 4 * 1024;

/** Input that DynamoDB could not store: 413 when too large, else 400; to the admin CLI, bad input (exit 2). */
export class StorageLimitError extends ApiError {
  constructor(tooLarge: boolean, message: string) {
    super(tooLarge ? 'payload_too_large' : 'invalid_request', message);
  }
}

const PARTITION_KEYS = new Set<string>([TABLE_KEYS.partitionKey, ...TABLE_KEYS.globalIndexes.map((i) => i.partitionKey)]);
const SORT_KEYS = new Set<string>([TABLE_KEYS.sortKey, ...TABLE_KEYS.globalIndexes.map((i) => i.sortKey)]);

type AttributeItem = Record<string, AttributeValue>;
type Request = { Item?: AttributeItem; Key?: AttributeItem };

/**
 * Checks one low-level (marshalled) DynamoDB request: every item it writes
 * (size, keys, numbers, nesting) and every key it names. Update values are
 * checked as values; updates here only set small fields or remove.
 */
export function checkRequest(input: Record<string, unknown>): void {
  for (const request of requestsOf(input)) {
    if (request.Item) checkItem(request.Item);
    if (request.Key) checkKeys(request.Key);
  }
  const values = input.ExpressionAttributeValues as AttributeItem | undefined;
  for (const value of Object.values(values ?? {})) valueBytes(value, 1);
}

/** The single-item requests inside Put/Get/Update/Delete, BatchGet, BatchWrite and Transact* inputs. */
function requestsOf(input: Record<string, unknown>): Request[] {
  const batches = Object.values((input.RequestItems ?? {}) as Record<string, unknown>).flatMap((batch) =>
    Array.isArray(batch)
      ? batch.map((w: { PutRequest?: Request; DeleteRequest?: Request }) => w.PutRequest ?? w.DeleteRequest ?? {})
      : ((batch as { Keys?: AttributeItem[] }).Keys ?? []).map((Key) => ({ Key })),
  );
  const transact = ((input.TransactItems ?? []) as Record<string, Request>[]).flatMap((t) => Object.values(t));
  return [input, ...batches, ...transact];
}

export function checkItem(item: AttributeItem): void {
  checkKeys(item);
  const bytes = itemBytes(item);
  if (bytes > DYNAMODB_LIMITS.itemBytes) {
    throw new StorageLimitError(
      true,
      `Too large to store: ${bytes.toLocaleString('en')} bytes as DynamoDB counts them; one item holds at most ${DYNAMODB_LIMITS.itemBytes.toLocaleString('en')} (400 KB).`,
    );
  }
}

function checkKeys(item: AttributeItem): void {
  for (const [name, value] of Object.entries(item)) {
    const max = PARTITION_KEYS.has(name) ? DYNAMODB_LIMITS.partitionKeyBytes : SORT_KEYS.has(name) ? DYNAMODB_LIMITS.sortKeyBytes : null;
    if (max === null || value.S === undefined) continue;
    if (value.S === '') throw new StorageLimitError(false, 'An id that is part of a key is empty; DynamoDB keys cannot be empty.');
    const bytes = utf8Bytes(value.S);
    if (bytes > max) {
      throw new StorageLimitError(
        false,
        `An id is too long to be stored as a key: ${bytes.toLocaleString('en')} bytes where DynamoDB allows ${max.toLocaleString('en')}.`,
      );
    }
  }
}

/** DynamoDB's size of an item (attribute names plus values). */
export function itemBytes(item: AttributeItem): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) bytes += utf8Bytes(name) + valueBytes(value, 1);
  return bytes;
}

/** One value's size; `level` is its nesting depth (a top-level attribute is level 1). */
function valueBytes(value: AttributeValue, level: number): number {
  if (level > DYNAMODB_LIMITS.nestingLevels) {
    throw new StorageLimitError(false, `Nested more than ${DYNAMODB_LIMITS.nestingLevels} levels deep, more than DynamoDB stores.`);
  }
  if (value.S !== undefined) return utf8Bytes(value.S);
  if (value.N !== undefined) return numberBytes(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS) return sum(value.SS.map(utf8Bytes));
  if (value.NS) return sum(value.NS.map(numberBytes));
  if (value.BS) return sum(value.BS.map((b) => b.byteLength));
  if (value.L) return 3 + sum(value.L.map((v) => 1 + valueBytes(v, level + 1)));
  if (value.M) return 3 + sum(Object.entries(value.M).map(([k, v]) => 1 + utf8Bytes(k) + valueBytes(v, level + 1)));
  return 0;
}

/**
 * A number takes 1 byte, plus 1 per pair of digits counted from the decimal
 * point (significant digits only), plus 1 when negative; 0 takes 1. This is
 * the documented "1 byte per two significant digits + 1 byte", as DynamoDB
 * Local counts it exactly (1.5 spans two pairs, 0|1 and 5|0: 3 bytes).
 */
export function numberBytes(n: string): number {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(n);
  if (!match) throw new StorageLimitError(false, `${n} is not a number.`);
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const all = whole + fraction;
  const first = all.search(/[1-9]/);
  if (first < 0) return 1;
  const last = all.length - 1 - [...all].reverse().findIndex((c) => c !== '0');
  // The powers of ten of the first and last significant digits.
  const power = (index: number) => whole.length - 1 - index + Number(exponent);
  const [leading, trailing] = [power(first), power(last)];
  const { significantDigits, leadingPower } = DYNAMODB_LIMITS;
  if (last - first + 1 > significantDigits || leading < leadingPower.min || leading > leadingPower.max) {
    throw new StorageLimitError(
      false,
      `The number ${n} cannot be stored exactly: DynamoDB keeps at most 38 significant digits, magnitudes from 1E-130 to under 1E+126.`,
    );
  }
  const pairs = Math.floor(leading / 2) - Math.floor(trailing / 2) + 1;
  return 1 + pairs + (sign === '-' ? 1 : 0);
}

const utf8Bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/**
 * The size of a plain value (what a repository passes to the document
 * client) once stored as one item, mapped as the document client maps it:
 * undefined is dropped, arrays become lists, objects maps, Sets sets. Loaders
 * judge each item-to-be with it before writing anything.
 */
export function plainItemBytes(value: Record<string, unknown>): number {
  return itemBytes(plainMap(value));
}

function plainMap(value: Record<string, unknown>): AttributeItem {
  return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v === undefined ? [] : [[k, toAttribute(v)]])));
}

function toAttribute(value: unknown): AttributeValue {
  if (value === null) return { NULL: true };
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number' || typeof value === 'bigint') return { N: String(value) };
  if (typeof value === 'boolean') return { BOOL: value };
  if (value instanceof Uint8Array) return { B: value };
  if (value instanceof Set) {
    const members = [...value];
    return typeof members[0] === 'number' ? { NS: members.map(String) } : { SS: members.map(String) };
  }
  if (Array.isArray(value)) return { L: value.filter((v) => v !== undefined).map(toAttribute) };
  return { M: plainMap(value as Record<string, unknown>) };
}
