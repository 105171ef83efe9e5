import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVER_URL_PLACEHOLDER } from '#contract/openapi-artefact';
import { openApiDocument } from '#contract/openapi';

/**
 * The served OpenAPI document as it was when the response schemas were written with zod (test/fixtures/openapi,
 * where reviewUrl's format is corrected from zod's invalid `starts_with` to `uri`): the document built now must
 * say the same. toEqual ignores key order; `notation` evens out what two converters
 * write differently for the same rule, and nothing else.
 */
const FIXTURE = new URL('../fixtures/openapi/document.json', import.meta.url);

type Json = unknown;

/**
 * Two spellings of one schema made one: a nullable plain type, `anyOf: [{type: T}, {type: 'null'}]`, as
 * `type: [T, 'null']`; a lower bound below an exclusive one (an integer's safe range beside `> 0`) dropped.
 */
function notation(value: Json): Json {
  if (Array.isArray(value)) return value.map(notation);
  if (!value || typeof value !== 'object') return value;
  const schema = Object.fromEntries(Object.entries(value).map(([key, v]) => [key, notation(v)])) as Record<string, any>;
  const [first, second, ...rest] = (schema.anyOf ?? []) as Record<string, unknown>[];
  if (
    rest.length === 0 &&
    second?.type === 'null' &&
    Object.keys(second).length === 1 &&
    first &&
    Object.keys(first).join() === 'type' &&
    typeof first.type === 'string'
  ) {
    delete schema.anyOf;
    schema.type = [first.type, 'null'];
  }
  if (typeof schema.exclusiveMinimum === 'number' && typeof schema.minimum === 'number' && schema.minimum <= schema.exclusiveMinimum)
    delete schema.minimum;
  return schema;
}

describe('the OpenAPI document', () => {
  it('is equivalent to the recorded one', () => {
    const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    const built = JSON.parse(JSON.stringify(openApiDocument(SERVER_URL_PLACEHOLDER)));
    expect(notation(built)).toEqual(notation(recorded));
  });
});
