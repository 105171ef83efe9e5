import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCHEMA_TYPES_FILE, schemaTypes } from '../scripts/schema-types.js';

describe('src/schema.d.ts', () => {
  it("is what openapi-typescript renders from the service's OpenAPI document today (else: npm run kit:types)", async () => {
    const fresh = await schemaTypes();
    expect(fresh).toContain('"/v1/{group_id}/{location_id}/bevq/menu"');
    expect(readFileSync(SCHEMA_TYPES_FILE, 'utf8') === fresh, 'src/schema.d.ts is stale: run npm run kit:types').toBe(true);
  });
});
