import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The repository carries the contract so every clone can test against it; where the shared original sits next to
// the repository (../shared, relative to its root) the copy must be byte-identical to it.
const COPY = new URL('../../spec/customer-api-v1.md', import.meta.url);
const SHARED = new URL('../../../shared/spec/customer-api-v1.md', import.meta.url);

describe('the repository copy of the contract', () => {
  it('reads as the contract, and is byte-identical to the shared contract wherever that exists', () => {
    expect(existsSync(COPY), 'spec/customer-api-v1.md is missing').toBe(true);
    const copy = readFileSync(COPY);
    const text = copy.toString('utf8');
    expect(text.split('\n', 1)[0]).toBe('# Customer Developer API: discovery, module resources, emergency stop and beverage-menu webhooks');
    expect([...text.matchAll(/^## (\d+)\. /gm)].map(([, n]) => Number(n))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect([...text.matchAll(/^\| (GET|POST) \| `(\/[^`]+)` \|/gm)].length).toBeGreaterThan(30);
    expect(text).toContain('| eventType | string | yes |');
    // A clone without ../shared has no original to compare with; the checks above still hold there, so the test
    // runs everywhere instead of skipping (a skip would also hide a missing copy).
    if (existsSync(SHARED)) {
      const original = readFileSync(SHARED);
      expect(copy.equals(original), 'spec/customer-api-v1.md differs from ../shared/spec/customer-api-v1.md').toBe(true);
    }
  });
});
