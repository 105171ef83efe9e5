import { toJsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROUTES, type AdminOperation } from '#contract/admin-routes';
import { type Route } from '#contract/routes';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { menuInput } from '#contract/schemas/bevq';
import { SCOPES } from '#contract/scopes';
import { ADMIN_INPUTS } from '#lambdas/admin/inputs';
import { addDestinationInput, appInput, editDestinationInput } from '#domain/inputs';
import { campaignsFile } from '#lambdas/producers/loads/campaigns';
import { matriqFile } from '#lambdas/producers/loads/matriq';
import { shiftqLoadBody } from '#lambdas/producers/loads/shiftq';
import { sportsFile } from '#lambdas/producers/loads/sports';
import { venueFile } from '#lambdas/producers/loads/venues';
import { readFileSync } from 'node:fs';
import type { LocalRuntime } from '#local/runtime';
import { fullMenu } from '../fixtures/contract-seed.js';
import { storedDestination } from '../fixtures/stored-destination.js';
import { adminCall, call, expectUnchanged, newApp, scanTable, startTestRuntime, tokenFor } from '../support/runtime.js';

/**
 * Every validation refusal a client or operator can meet is written for
 * people: over real HTTP, each /v1 route and each admin operation that takes
 * input gets bad input (a field it does not know, a wrong type, a value out
 * of range, a malformed value or JSON) and answers 400 with a message that
 * names the field, in none of the schema library's words. The routes come
 * from the route tables and the bad values from each route's own schemas
 * (as JSON Schema), so a new route or field is covered the day it is declared.
 */

/** Valibot's and zod's own wording of an issue; a message to a person never has it. */
const LIBRARY_WORDS = /Expected|received|Invalid key|Invalid type|invalid_/;

type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  enum?: unknown[];
  const?: unknown;
};

const jsonSchemaOf = (schema: GenericSchema) => toJsonSchema(schema, { typeMode: 'input', errorMode: 'ignore' }) as JsonSchema;

/** The type a property holds, a nullable one's besides null. */
const typeOf = (schema: JsonSchema): string | undefined => schema.type ?? schema.anyOf?.find((s) => s.type !== 'null')?.type;

/** Values of the wrong type for a property, then values just past its bounds. */
function badValues(schema: JsonSchema): unknown[] {
  const plain = schema.anyOf?.find((s) => s.type !== 'null') ?? schema;
  const type = typeOf(schema);
  const values: unknown[] = [];
  if (type) values.push(type === 'string' ? 12345 : 'not-a-value');
  else if (plain.enum || plain.const !== undefined) values.push(12345);
  if (plain.maxLength !== undefined) values.push('x'.repeat(plain.maxLength + 1));
  if (plain.minLength) values.push('');
  if (plain.minimum !== undefined && plain.minimum > -Number.MAX_SAFE_INTEGER) values.push(plain.minimum - 1);
  if (plain.maximum !== undefined && plain.maximum < Number.MAX_SAFE_INTEGER) values.push(plain.maximum + 1);
  if (plain.minItems) values.push([]);
  if (plain.maxItems !== undefined && plain.items?.type === 'string')
    values.push(Array.from({ length: plain.maxItems + 1 }, (_, i) => `item-${i}`));
  return values;
}

/** A query value every parameter refuses: too long for any id, cursor or text rule, neither a number, a date nor a listed value. */
const WRONG_QUERY_VALUE = 'z'.repeat(3000);

/** Query values just past an integer parameter's bounds, and one that is no whole number. */
function badQueryValues(schema: JsonSchema): string[] {
  const values = [WRONG_QUERY_VALUE];
  if (schema.type === 'integer') values.push(String((schema.minimum ?? 0) - 1), String((schema.maximum ?? 0) + 1), '1.5', 'ten');
  return values;
}

/** A 400 whose message names the field (`names`: its wording) in none of the library's words. */
function expectReadable(reply: { status: number; body: any }, names: string | RegExp, what: string): void {
  expect(reply.status, what).toBe(400);
  const message: string = reply.body?.error?.message ?? '';
  expect(message, what).not.toMatch(LIBRARY_WORDS);
  expect(message, what).toMatch(names);
}

/** An admin field: `Body field x` where the admin function checks the body, `Field x` where the operation does. */
const adminField = (name: string) => new RegExp(`(^|\\. )(Body field|Field) ${name} `);

let runtime: LocalRuntime;
let token = '';

beforeAll(async () => {
  // No scheduled sweep: its first run writes a cursor item, which the "nothing changes" snapshots would catch.
  runtime = await startTestRuntime({ sweepEveryMs: 24 * 3_600_000 });
  token = (await tokenFor(runtime, { scopes: [...SCOPES] })).token;
});
afterAll(() => runtime?.stop());

// ───────────────────────── /v1 ─────────────────────────

/** Values from the demo data, so only the value under test is wrong. */
const V1_PARAMS: Record<string, string> = { group_id: 'demo-group', location_id: 'nyc-midtown', date: '2026-11-22', name: 'nfl.svg' };
const fill = (path: string, params: Record<string, string>) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? 'no-such-id'));

const v1 = (route: Route, params: Record<string, string>, query = '', init: RequestInit = {}) =>
  call(runtime, `${fill(route.path, { ...V1_PARAMS, ...params })}${query}`, { token, method: route.method, ...init });

const jsonBody = (body: unknown): RequestInit => ({
  body: typeof body === 'string' ? body : JSON.stringify(body),
  headers: { 'Content-Type': 'application/json' },
});

const label = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
const WITH_QUERY = ROUTES.filter((r) => r.query);
const WITH_PARAMS = ROUTES.filter((r) => r.params);
const WITH_BODY = ROUTES.filter((r) => r.body);

describe('/v1 refusals name the field in words', () => {
  it('walks routes of every kind of input', () => {
    expect(WITH_QUERY.length).toBeGreaterThanOrEqual(5);
    expect(WITH_PARAMS.length).toBeGreaterThanOrEqual(2);
    expect(WITH_BODY.length).toBeGreaterThanOrEqual(1);
  });

  it.each(WITH_QUERY.map((r) => [label(r), r] as const))('%s: each query parameter, malformed or out of range', async (_, route) => {
    for (const [name, schema] of Object.entries(jsonSchemaOf(route.query!).properties ?? {})) {
      for (const value of badQueryValues(schema)) {
        const reply = await v1(route, {}, `?${name}=${encodeURIComponent(value)}`);
        expectReadable(reply, `Query parameter ${name} `, `${name}=${value.slice(0, 20)}`);
      }
    }
  });

  it.each(WITH_PARAMS.map((r) => [label(r), r] as const))('%s: each path parameter, malformed', async (_, route) => {
    for (const name of Object.keys(jsonSchemaOf(route.params!).properties ?? {})) {
      expectReadable(await v1(route, { [name]: 'not-valid' }), `Path parameter ${name} `, name);
    }
  });

  it.each(WITH_BODY.map((r) => [label(r), r] as const))(
    '%s: an unknown field, each field of a wrong type or out of range, malformed JSON',
    async (_, route) => {
      expectReadable(await v1(route, {}, '', jsonBody({ reasn: 'typo' })), 'Body field reasn is not allowed.', 'unknown field');
      for (const [name, schema] of Object.entries(jsonSchemaOf(route.body!).properties ?? {})) {
        for (const value of badValues(schema))
          expectReadable(
            await v1(route, {}, '', jsonBody({ [name]: value })),
            `Body field ${name} `,
            `${name}: ${JSON.stringify(value).slice(0, 20)}`,
          );
      }
      expectReadable(await v1(route, {}, '', jsonBody('{"reason": ')), 'not valid JSON', 'malformed JSON');
    },
  );
});

// ───────────────────────── admin ─────────────────────────

/**
 * The schemas of the admin bodies an operation checks itself (the same check the admin CLI gets), keyed by
 * operation; the route table's other bodies are checked by the admin function with ADMIN_INPUTS.
 */
const OPERATION_SCHEMAS: Partial<Record<AdminOperation, GenericSchema>> = {
  createApp: appInput,
  createLegacyApp: appInput,
  addDestination: addDestinationInput,
  editDestination: editDestinationInput,
  publishMenu: menuInput,
  loadVenues: venueFile,
  loadShiftq: shiftqLoadBody,
  loadSports: sportsFile,
  loadMatriq: matriqFile,
  loadCampaigns: campaignsFile,
};

/** A sample load file (examples/data/), a body its load would take. */
const sample = (name: string) => JSON.parse(readFileSync(new URL(`../../examples/data/${name}`, import.meta.url), 'utf8'));

const bodySchemaOf = (operation: AdminOperation) => OPERATION_SCHEMAS[operation] ?? ADMIN_INPUTS[operation]!.body!;
const ADMIN_BODIES = ADMIN_ROUTES.filter((r) => ADMIN_INPUTS[r.operation]?.body);
const ADMIN_QUERIES = ADMIN_ROUTES.filter((r) => ADMIN_INPUTS[r.operation]?.query);

/** Path ids of the right shape that name nothing: every body is checked before anything is looked up. */
const adminPath = (path: string) => fill(path.replace(/^\/admin\/v1/, ''), {});

describe('admin refusals name the field in words', () => {
  it('knows the schema of every body an operation checks itself', () => {
    const passedOn = ADMIN_BODIES.filter((r) => ADMIN_INPUTS[r.operation]?.body!.type === 'unknown');
    expect(passedOn.map((r) => r.operation).sort()).toEqual(Object.keys(OPERATION_SCHEMAS).sort());
    expect(ADMIN_QUERIES.length).toBeGreaterThanOrEqual(5);
  });

  it.each(ADMIN_BODIES.map((r) => [label(r), r] as const))(
    '%s: an unknown field, each field of a wrong type or out of range, malformed JSON',
    async (_, route) => {
      const path = adminPath(route.path);
      expectReadable(await adminCall(runtime, route.method, path, { reasn: 'typo' }), adminField('reasn'), 'unknown field');
      for (const [name, schema] of Object.entries(jsonSchemaOf(bodySchemaOf(route.operation)).properties ?? {})) {
        for (const value of badValues(schema)) {
          expectReadable(
            await adminCall(runtime, route.method, path, { [name]: value }),
            adminField(name),
            `${name}: ${JSON.stringify(value).slice(0, 20)}`,
          );
        }
      }
      expectReadable(await adminCall(runtime, route.method, path, '{"name": '), 'not valid JSON', 'malformed JSON');
    },
  );

  it.each(ADMIN_QUERIES.map((r) => [label(r), r] as const))('%s: each query parameter, malformed or out of range', async (_, route) => {
    const schema = jsonSchemaOf(ADMIN_INPUTS[route.operation]!.query!);
    // The required parameters (group ids) from the demo data, so only the value under test is wrong.
    const required = Object.fromEntries((schema.required ?? []).map((name) => [name, 'demo-group']));
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      for (const value of badQueryValues(property)) {
        const query = new URLSearchParams({ ...required, [name]: value });
        expectReadable(
          await adminCall(runtime, route.method, `${adminPath(route.path)}?${query.toString()}`),
          `Query parameter ${name} `,
          `${name}=${value.slice(0, 20)}`,
        );
      }
    }
  });
});

// ───────────────────────── unknown fields, whatever their name ─────────────────────────

/** A typo, and the names an object has by its prototype: each is refused like any other unknown field. */
const UNKNOWN_NAMES = ['reasn', '__proto__', 'constructor', 'prototype', 'toString'];

/** The body as JSON with one more field first, written out so `__proto__` is sent as a field like the others. */
const withField = (body: Record<string, unknown>, name: string) =>
  JSON.stringify(body).replace(/^\{/, `{${JSON.stringify(name)}:1${Object.keys(body).length ? ',' : ''}`);

/** Rows other than the rate counters every /v1 request writes. */
const stateOf = async () => (await scanTable(runtime)).filter((item) => !String(item.PK).startsWith('RATE#'));

/** Paths of the objects a schema lets a body hold that are not strict (an unknown field in them is dropped, not refused). */
function lenientObjects(schema: GenericSchema, path: string): string[] {
  const s = schema as GenericSchema & {
    entries?: Record<string, GenericSchema>;
    wrapped?: GenericSchema;
    item?: GenericSchema;
    options?: GenericSchema[];
    key?: GenericSchema & { pipe?: unknown[] };
    value?: GenericSchema;
  };
  // A map keyed by ids of a rule, each checked by its operation (a viewing day's options by event id, against the
  // schedule): its keys are data, not field names; its values are held to the rule.
  if (s.type === 'record' && s.key?.pipe) return lenientObjects(s.value!, `${path}.*`);
  if (['object', 'loose_object', 'object_with_rest', 'record', 'map'].includes(s.type)) return [`${path} (${s.type})`];
  if (s.entries) return Object.entries(s.entries).flatMap(([key, entry]) => lenientObjects(entry, `${path}.${key}`));
  if (s.wrapped) return lenientObjects(s.wrapped, path);
  if (s.item) return lenientObjects(s.item, `${path}.0`);
  return (s.options ?? []).flatMap((option) => lenientObjects(option, path));
}

describe('unknown fields are refused whatever their name, and nothing changes', () => {
  it('every object a /v1 or admin body can hold, at any depth, is strict', () => {
    const bodies = [
      ...WITH_BODY.map((r) => [label(r), r.body!] as const),
      ...ADMIN_BODIES.map((r) => [label(r), bodySchemaOf(r.operation)] as const),
    ];
    expect(bodies.flatMap(([what, schema]) => lenientObjects(schema, what))).toEqual([]);
  });

  let validAdminBodies: Partial<Record<AdminOperation, Record<string, unknown>>>;
  let adminParams: Record<string, string>;

  beforeAll(async () => {
    const { clientId } = await newApp(runtime, { scopes: ['bevq:read'] });
    const destinationId = 'dst_00000000000000000001';
    const at = new Date().toISOString();
    await runtime.deps.store.destinations.put(
      storedDestination({ destinationId, clientId, groupId: 'demo-group', url: 'https://hooks.example.test/x' }, at),
      { mustExist: false },
    );
    adminParams = { groupId: 'demo-group', locationId: 'nyc-midtown', destinationId, clientId };
    // A body each route would take, so the one field added is the only thing wrong and the change would happen without it.
    validAdminBodies = {
      createApp: { groupId: 'demo-group', name: 'Unknown fields', scopes: ['bevq:read'] },
      createLegacyApp: { groupId: 'demo-group', name: 'Unknown fields', scopes: ['bevq:read'] },
      putGroup: { name: 'Unknown fields' },
      putLocation: {
        name: 'Unknown fields',
        locationShortName: 'UF',
        timezone: 'Europe/London',
        slug: 'unknown-fields',
        modulesEnabled: {},
      },
      addDestination: { clientId, name: 'Unknown fields', url: 'https://hooks.example.test/y' },
      editDestination: { name: 'Renamed' },
      rotateClientSecret: { overlapHours: 0 },
      publishMenu: fullMenu(),
      sendTest: { locationId: 'nyc-midtown' },
      liftMailSuppression: { address: 'owner@example.com' },
      loadVenues: sample('venues.json'),
      loadShiftq: sample('shiftq.json'),
      loadSports: sample('sports.json'),
      loadMatriq: sample('matriq.json'),
      loadCampaigns: sample('campaigns.json'),
      reportStopResult: { status: 'applied' },
    };
  });

  /** A body each /v1 route would take (the emergency stop would be queued), so the one field added is the only thing wrong. */
  const VALID_V1_BODIES: Record<string, Record<string, unknown>> = { matriqEmergencyStop: { reason: 'Unknown fields' } };

  it.each(WITH_BODY.map((r) => [label(r), r] as const))('/v1 %s', async (_, route) => {
    const before = await stateOf();
    for (const name of UNKNOWN_NAMES) {
      const reply = await v1(route, {}, '', jsonBody(withField(VALID_V1_BODIES[route.operation] ?? {}, name)));
      expect(reply.status, name).toBe(400);
      expect(reply.body.error, name).toMatchObject({ code: 'invalid_request', message: `Body field ${name} is not allowed.` });
    }
    expectUnchanged(await stateOf(), before);
  });

  it.each(ADMIN_BODIES.map((r) => [label(r), r] as const))('admin %s', async (_, route) => {
    const where = OPERATION_SCHEMAS[route.operation] ? 'Field' : 'Body field';
    const path = fill(route.path.replace(/^\/admin\/v1/, ''), adminParams);
    const before = await stateOf();
    for (const name of UNKNOWN_NAMES) {
      const reply = await adminCall(runtime, route.method, path, withField(validAdminBodies[route.operation] ?? {}, name));
      expect(reply.status, name).toBe(400);
      expect(reply.body.error, name).toMatchObject({ code: 'invalid_request', message: `${where} ${name} is not allowed.` });
    }
    expectUnchanged(await stateOf(), before);
  });

  it("admin: an unknown field deep in a menu (an item's brand or size) is refused, and nothing is published", async () => {
    const before = await stateOf();
    for (const name of UNKNOWN_NAMES) {
      for (const [at, place] of [
        ['brand', (item: Record<string, any>) => (item.brand = JSON.parse(withField(item.brand, name)))],
        ['sizes.0', (item: Record<string, any>) => (item.sizes[0] = JSON.parse(withField(item.sizes[0], name)))],
      ] as const) {
        const menu = fullMenu();
        place(menu.sections[0]!.items[0]!);
        const reply = await adminCall(runtime, 'PUT', '/menus/demo-group/nyc-midtown', menu);
        expect(reply.status, `${at}.${name}`).toBe(400);
        expect(reply.body.error.message).toBe(`Field sections.0.items.0.${at}.${name} is not allowed.`);
      }
    }
    expectUnchanged(await stateOf(), before);
  });
});
