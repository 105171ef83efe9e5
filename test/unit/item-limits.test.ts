import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkItem, checkRequest, DYNAMODB_LIMITS, itemBytes, numberBytes, plainItemBytes, StorageLimitError } from '#data/limits';

/**
 * DynamoDB's own measures. The boundaries below are the largest items
 * DynamoDB Local 3.3.1 (AWS's engine) accepted, found by bisection; the
 * storage-limits integration test writes at and past them on both engines.
 */

type Item = Record<string, AttributeValue>;
const keys = { PK: { S: 'p' }, SK: { S: 's' } }; // 2 + 1 + 2 + 1 = 6 bytes
const limit = DYNAMODB_LIMITS.itemBytes;
const refused = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof StorageLimitError ? err : null;
  }
  return null;
};

describe('item size', () => {
  it('counts strings in UTF-8 bytes: 1, 3 and 4 bytes per character', () => {
    const withText = (text: string): Item => ({ ...keys, a: { S: text } });
    for (const [char, bytes] of [
      ['x', 1],
      ['€', 3],
      ['😀', 4],
    ] as const) {
      const fits = Math.floor((limit - 7) / bytes);
      expect(itemBytes(withText(char.repeat(fits)))).toBeLessThanOrEqual(limit);
      expect(() => checkItem(withText(char.repeat(fits)))).not.toThrow();
      const err = refused(() => checkItem(withText(char.repeat(fits + 1))));
      expect(err?.status, char).toBe(413);
      expect(err?.code).toBe('payload_too_large');
    }
  });

  it('adds 3 bytes per list or map and 1 per element', () => {
    expect(itemBytes({ a: { L: [] } })).toBe(1 + 3);
    expect(itemBytes({ a: { L: [{ S: 'x' }, { BOOL: true }, { NULL: true }] } })).toBe(1 + 3 + 3 * 2);
    expect(itemBytes({ a: { M: { key: { S: 'xy' } } } })).toBe(1 + 3 + 1 + 3 + 2);
    // DynamoDB Local: 204,795 one-character strings in a list fill an item; 45,510 seven-byte-named map entries.
    const list = (n: number): Item => ({ ...keys, a: { L: Array.from({ length: n }, () => ({ S: 'x' })) } });
    expect(itemBytes(list(204_795))).toBeLessThanOrEqual(limit);
    expect(itemBytes(list(204_796))).toBeGreaterThan(limit);
    const map = (n: number): Item => ({
      ...keys,
      a: { M: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${String(i).padStart(6, '0')}`, { S: 'x' }])) },
    });
    expect(itemBytes(map(45_510))).toBeLessThanOrEqual(limit);
    expect(itemBytes(map(45_511))).toBeGreaterThan(limit);
  });

  it('counts sets as the sum of their members, binary in raw bytes', () => {
    expect(itemBytes({ s: { SS: ['ab', 'é'] } })).toBe(1 + 2 + 2);
    expect(itemBytes({ b: { B: new Uint8Array(10) } })).toBe(1 + 10);
  });

  it('measures plain values as the document client stores them', () => {
    const plain = { name: 'Ünïcode 😀', price: 8.5, tags: ['a', undefined, 'b'], nested: { flag: true, none: null, gone: undefined } };
    const marshalled: Item = {
      name: { S: 'Ünïcode 😀' },
      price: { N: '8.5' },
      tags: { L: [{ S: 'a' }, { S: 'b' }] },
      nested: { M: { flag: { BOOL: true }, none: { NULL: true } } },
    };
    expect(plainItemBytes(plain)).toBe(itemBytes(marshalled));
  });
});

describe('numbers', () => {
  it('take 1 byte plus 1 per pair of significant digits counted from the decimal point, plus 1 when negative', () => {
    const sizes: [string, number][] = [
      ['0', 1],
      ['1', 2],
      ['12', 2],
      ['100', 2],
      ['0.001', 2],
      ['1e125', 2],
      ['123', 3],
      ['1.5', 3],
      ['-1', 3],
      ['12345678901234567890123456789012345678', 20],
    ];
    for (const [n, bytes] of sizes) expect(numberBytes(n), n).toBe(bytes);
  });

  it('are refused past 38 significant digits or outside 1E-130 to under 1E+126', () => {
    for (const n of ['1e-200', '1e+200', '1e126', '9e-131', '1234567890123456789012345678901234567891']) {
      expect(refused(() => numberBytes(n))?.status, n).toBe(400);
    }
    for (const n of ['1e-130', '9.9999999999999999999999999999999999999E+125', '-1e-130', String(Number.MAX_SAFE_INTEGER)]) {
      expect(() => numberBytes(n), n).not.toThrow();
    }
  });
});

describe('keys', () => {
  it('allows 2,048 bytes in a partition key and 1,024 in a sort key, table and GSI alike', () => {
    for (const [name, max] of [
      ['PK', 2048],
      ['GSI1PK', 2048],
      ['SK', 1024],
      ['GSI1SK', 1024],
    ] as const) {
      expect(() => checkItem({ ...keys, [name]: { S: 'x'.repeat(max) } }), name).not.toThrow();
      expect(refused(() => checkItem({ ...keys, [name]: { S: 'x'.repeat(max + 1) } }))?.status, name).toBe(400);
    }
    // 683 three-byte characters are 2,049 bytes though only 683 UTF-16 code units.
    expect(refused(() => checkItem({ ...keys, PK: { S: '€'.repeat(683) } }))?.code).toBe('invalid_request');
  });

  it('never accepts an empty key value, while other strings may be empty', () => {
    for (const name of ['PK', 'SK', 'GSI1PK', 'GSI1SK'])
      expect(
        refused(() => checkItem({ ...keys, [name]: { S: '' } })),
        name,
      ).not.toBeNull();
    expect(() => checkItem({ ...keys, note: { S: '' } })).not.toThrow();
  });
});

describe('nesting', () => {
  it('allows 32 levels and refuses 33', () => {
    const nested = (maps: number): AttributeValue => (maps === 0 ? { S: 'x' } : { M: { a: nested(maps - 1) } });
    expect(() => checkItem({ ...keys, d: nested(31) })).not.toThrow();
    expect(refused(() => checkItem({ ...keys, d: nested(32) }))?.status).toBe(400);
  });
});

describe('requests', () => {
  it('checks every item and key a request names: put, get, update, batches and transactions', () => {
    const long = { PK: { S: 'x'.repeat(2049) }, SK: { S: 's' } };
    const requests = [
      { Item: long },
      { Key: long },
      { Key: keys, ExpressionAttributeValues: { ':n': { N: '1e-200' } } },
      { RequestItems: { t: [{ PutRequest: { Item: keys } }, { DeleteRequest: { Key: long } }] } },
      { RequestItems: { t: { Keys: [keys, long] } } },
      { TransactItems: [{ Put: { Item: keys } }, { Update: { Key: long } }] },
    ];
    for (const request of requests)
      expect(
        refused(() => checkRequest(request)),
        JSON.stringify(request).slice(0, 80),
      ).not.toBeNull();
    expect(() => checkRequest({ Item: keys, ExpressionAttributeValues: { ':one': { N: '1' } } })).not.toThrow();
  });
});

// The store skips measuring a request of at most 100 attributes, each a non-empty string of at most 256 UTF-16 units
// or a safe integer (lambdas/data/store.ts): whatever those hold, no limit refuses them, keys included.
describe('requests the store does not measure', () => {
  const short = fc.string({ unit: 'binary', minLength: 1, maxLength: 256, size: 'max' }).filter((s) => s.length <= 256);
  const value = fc.oneof(
    short.map((S) => ({ S })),
    fc.maxSafeInteger().map((n) => ({ N: String(n) })),
    fc.maxSafeNat().map((n) => ({ N: String(-n) })),
  );
  const keyNames = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'GSI3PK', 'GSI3SK'];
  it('are within every limit DynamoDB has', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.oneof(fc.constantFrom(...keyNames), short), value, { maxKeys: 100 }),
        fc.record({ PK: short, SK: short }),
        (item, key) => {
          const stored = { ...item, PK: { S: key.PK }, SK: { S: key.SK } } as Item;
          expect(refused(() => checkRequest({ Item: stored, Key: { PK: { S: key.PK }, SK: { S: key.SK } } }))).toBeNull();
        },
      ),
      { numRuns: 100, endOnFailure: true },
    );
  });
});
