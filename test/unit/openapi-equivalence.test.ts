import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVER_URL_PLACEHOLDER } from '#contract/openapi-artefact';
import { openApiDocument } from '#contract/openapi';

/**
 * The served OpenAPI document as it was before the response schemas moved to Valibot (test/fixtures/openapi):
 * the document built now must say the same. toEqual ignores key order.
 */
const FIXTURE = new URL('../fixtures/openapi/document.json', import.meta.url);

describe('the OpenAPI document', () => {
  it('is equivalent to the recorded one', () => {
    const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    const built = JSON.parse(JSON.stringify(openApiDocument(SERVER_URL_PLACEHOLDER)));
    expect(built).toEqual(recorded);
  });
});
