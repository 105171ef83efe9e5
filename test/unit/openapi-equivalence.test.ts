import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVER_URL_PLACEHOLDER } from '#contract/openapi-artefact';
import { openApiDocument } from '#lib/openapi';

/**
 * The served OpenAPI document as it was when the response schemas were written with zod (test/fixtures/openapi,
 * where reviewUrl's format is corrected from zod's invalid `starts_with` to `uri`, and which since records the
 * linted document's additions: the edge's 403 on every route, `security: []` on the webhooks, the licence): the
 * document built now must say the same. It names its schemas as components; with every $ref replaced by what it
 * names, it must hold the recorded one's inline schemas. toEqual ignores key order; `notation` evens out what two
 * converters write differently for the same rule, and nothing else. A path added since is not in the record: the
 * route table's test (test/unit/routes.test.ts) and the document's lint hold it.
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

const COMPONENT = /^#\/components\/schemas\/(.+)$/;

/** Every `$ref` to a component schema replaced by that schema (itself dereferenced), beside the ref's own keywords. */
function dereferenced(value: Json, schemas: Record<string, Json>): Json {
  if (Array.isArray(value)) return value.map((item) => dereferenced(item, schemas));
  if (!value || typeof value !== 'object') return value;
  const { $ref, ...rest } = value as Record<string, Json>;
  const own = Object.fromEntries(Object.entries(rest).map(([key, v]) => [key, dereferenced(v, schemas)]));
  const name = typeof $ref === 'string' ? COMPONENT.exec($ref)?.[1] : undefined;
  if (name === undefined) return $ref === undefined ? own : { $ref, ...own };
  expect(schemas, `a $ref names component ${name}`).toHaveProperty([name]);
  return { ...(dereferenced(schemas[name], schemas) as object), ...own };
}

describe('the OpenAPI document', () => {
  const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8'));
  const built = JSON.parse(JSON.stringify(openApiDocument(SERVER_URL_PLACEHOLDER)));

  it('is, with its component schemas in place, equivalent to the recorded one', () => {
    // Each document inline; the recorded components (Error, OAuthError, WebhookPayload) also under their names.
    const recordedPaths = (paths: Record<string, unknown>) => Object.fromEntries(Object.keys(recorded.paths).map((p) => [p, paths[p]]));
    const inline = ({ components: { schemas, ...components }, paths, ...document }: any) => ({
      ...(dereferenced({ ...document, paths: recordedPaths(paths), components }, schemas) as object),
      named: Object.keys(recorded.components.schemas).map((name) => dereferenced(schemas[name], schemas)),
    });
    expect(notation(inline(built))).toEqual(notation(inline(recorded)));
  });

  it('names the schemas of every JSON request and response body, and of the webhook payload', () => {
    const bodies = [
      ...Object.values(built.paths as Record<string, Record<string, any>>).flatMap((operations) =>
        Object.values(operations).flatMap((operation) => [operation.requestBody, ...Object.values(operation.responses)]),
      ),
      ...Object.values(built.webhooks as Record<string, any>).map((hook) => hook.post.requestBody),
    ];
    const schemas = bodies.flatMap((body: any) =>
      Object.entries(body?.content ?? {})
        .filter(([type]) => type.startsWith('application/'))
        .map(([, media]: [string, any]) => media.schema),
    );
    const inline = schemas.filter((schema) => !COMPONENT.test(schema.$ref ?? '') && JSON.stringify(schema) !== '{"type":"object"}');
    expect(inline).toEqual([]);
  });
});
