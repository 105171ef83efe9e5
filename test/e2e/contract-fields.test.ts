import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { SCOPES } from '#contract/scopes';
import { flatten, parseContract, parseList, parseNote, SCOPE, type ContractField, type FieldType } from '../fixtures/contract-fields.js';
import { fullMenu, KITCHEN_ERROR_LOCATION, seedKitchenError } from '../fixtures/contract-seed.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { call, manualClock, newApp, startTestRuntime, tokenFor, adminCall } from '../support/runtime.js';

/**
 * The contract's field tables as the oracle: every field sections 2.2–2.11 and 6.3 define (parsed from the
 * contract's text, never from the service's schemas) is looked up in a real response read over HTTP — or, for
 * 6.3, in real webhook payloads a real HTTPS receiver got — and must be there with the contract's type.
 */

const { fields, enumerations } = parseContract();
const clock = manualClock(); // 2026-11-22T12:00:10Z: 07:00 in New York, business date 20261122
const GROUP = '/v1/demo-group';
const LOC = `${GROUP}/nyc-midtown`;
const dns = controlledResolver({ 'hooks.example.test': ['127.0.0.1'] });

let runtime: LocalRuntime;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const responses: Record<string, unknown> = {};

async function read(name: string, path: string, token: string, init: RequestInit = {}) {
  const reply = await call(runtime, path, { token, ...init });
  expect(reply.status, `${name}: ${path}`).toBe(200);
  responses[name] = reply.body;
}

beforeAll(async () => {
  runtime = await startTestRuntime({ clock, resolver: dns.resolver, config: { webhookAllowLoopback: true, webhookTimeScale: 0.02 } });
  const everything = { scopes: [...SCOPES] };
  const expiresAt = new Date(clock.now() + 90 * 86_400_000).toISOString();
  const { token } = await tokenFor(runtime, { ...everything, expiresAt, rateLimitPerMinute: 10_000 });
  const scoped = await tokenFor(runtime, { ...everything, allowedLocationIds: ['nyc-midtown'] });

  // A destination first, so the menu published next is delivered; then a Send test through the same path.
  const holder = { secret: '' };
  receiver = await startReceiver({ secret: () => holder.secret });
  const hooks = await newApp(runtime, { scopes: ['bevq:read'], ownerEmail: 'contract-hooks@example.test' });
  const added = await adminCall(runtime, 'POST', '/destinations', {
    clientId: hooks.clientId,
    name: 'Contract hook',
    url: receiver.url,
    locationIds: ['nyc-midtown'],
  });
  expect(added.status).toBe(201);
  holder.secret = added.body.signingSecret;
  expect((await adminCall(runtime, 'PUT', '/menus/demo-group/nyc-midtown', fullMenu())).status).toBe(200);
  await receiver.waitFor(1);
  expect(
    (await adminCall(runtime, 'POST', `/destinations/${added.body.destination.destinationId}/test`, { locationId: 'nyc-midtown' })).status,
  ).toBe(202);
  const delivered = await receiver.waitFor(2);
  for (const request of delivered) expect(request.verified, 'signature').toBe(true);
  responses.webhookMenuUpdated = delivered.find((r) => r.body?.eventType === 'bevq.menu.updated')?.body;
  responses.webhookTest = delivered.find((r) => r.body?.eventType === 'customer_api.webhook.test')?.body;

  await seedKitchenError(runtime, '20261122');

  // Independent reads, at once.
  await Promise.all([
    read('locations', `${GROUP}/locations`, token),
    read('locationsScoped', `${GROUP}/locations`, scoped.token),
    read('shiftq', `${LOC}/shiftq`, token),
    // A requested date other than today, so the requested bucket is a day of its own.
    read('kitchen', `${LOC}/shiftq/kitchen?businessDate=20261121`, token),
    read('kitchenError', `${GROUP}/${KITCHEN_ERROR_LOCATION}/shiftq/kitchen?businessDay=20261122`, token),
    read('reservations', `${LOC}/shiftq/reservations`, token),
    read('toastReservations', `${LOC}/shiftq/toastReservations`, token),
    read('reviews', `${LOC}/shiftq/reviews`, token),
    read('leaderboard', `${GROUP}/shiftq/group-leaderboard`, token),
    read('provider', `${LOC}/sportsq/provider`, token),
    read('packages', `${LOC}/sportsq/packages`, token),
    read('sportsDate', `${LOC}/sportsq/2026-11-22`, token),
    read('matriq', `${LOC}/matriq`, token),
    read('providerAvailable', `${LOC}/matriq/providerAvailable`, token),
    read('providerAvailableAlias', `${LOC}/providerAvailable`, token),
    read('aiScheduler', `${LOC}/matriq/aiScheduler`, token),
    read('campaigns', `${LOC}/campaigns`, token),
    read('orderboard', `${LOC}/orderboard`, token),
    read('menu', `${LOC}/bevq/menu`, token),
  ]);
  // Last: the stop changes the scheduler state read above.
  await read('emergencyStop', `${LOC}/matriq/aiScheduler/emergency-stop`, token, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
  });
});
afterAll(async () => {
  await receiver?.stop();
  await runtime?.stop();
});

// ---------------------------------------------------------------------------------------------------------

/** Every value at a dotted path (`a.b[].c`): what was found, and where a required step was missing. */
function lookUp(root: unknown, path: string): { values: unknown[]; missing: string[]; notArrays: string[] } {
  const values: unknown[] = [];
  const missing: string[] = [];
  const notArrays: string[] = [];
  const walk = (node: unknown, segments: string[], trail: string) => {
    if (segments.length === 0) return void values.push(node);
    const [segment, ...rest] = segments as [string, ...string[]];
    const isArray = segment.endsWith('[]');
    const key = isArray ? segment.slice(0, -2) : segment;
    const here = trail ? `${trail}.${key}` : key;
    if (node === null || typeof node !== 'object' || !(key in node)) return void missing.push(here);
    const value = (node as Record<string, unknown>)[key];
    if (!isArray) return walk(value, rest, here);
    if (!Array.isArray(value)) return void notArrays.push(here);
    if (rest.length === 0) return void values.push(value);
    value.forEach((element, i) => walk(element, rest, `${here}[${i}]`));
  };
  walk(root, path ? path.split('.') : [], '');
  return { values, missing, notArrays };
}

const realDate = (y: number, m: number, d: number) => {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
};
const ZONES = new Set(Intl.supportedValuesOf('timeZone'));
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** Why `value` is not what the contract says, or null. */
function mismatch(value: unknown, type: FieldType): string | null {
  if (value === null) return type.nullable || type.base === undefined ? null : 'null';
  if (type.base === undefined) return null; // named without a type: presence is what the contract states
  const actual = Array.isArray(value) ? 'array' : typeof value;
  if (actual !== type.base) return `${actual}, not ${type.base}`;
  if (type.base === 'number' && !Number.isFinite(value)) return 'not a finite number';
  if (type.values && !type.values.includes(value as string | number))
    return `${JSON.stringify(value)} not one of ${JSON.stringify(type.values)}`;
  if (type.items) {
    const bad = (value as unknown[]).map((v) => mismatch(v, type.items!)).find(Boolean);
    if (bad) return `element: ${bad}`;
  }
  if (!type.format) return null;
  const s = value as string;
  let ok: boolean;
  switch (type.format) {
    case 'YYYYMMDD': {
      const m = s.match(/^(\d{4})(\d{2})(\d{2})$/);
      ok = !!m && realDate(+m[1]!, +m[2]!, +m[3]!);
      break;
    }
    case 'YYYY-MM-DD': {
      const m = s.match(/^(\d{4})-(\d{2})-(\d{2})$/);
      ok = !!m && realDate(+m[1]!, +m[2]!, +m[3]!);
      break;
    }
    case 'HH:MM':
      ok = /^([01]\d|2[0-3]):[0-5]\d$/.test(s);
      break;
    case 'iso':
      ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s));
      break;
    case 'iana':
      ok = ZONES.has(s) || s === 'UTC';
      break;
    case 'url':
    case 'https-url': {
      const url = URL.parse(s);
      ok = !!url && (type.format === 'https-url' ? url.protocol === 'https:' : ['http:', 'https:'].includes(url.protocol));
      break;
    }
    case 'iso4217':
      ok = /^[A-Z]{3}$/.test(s) && CURRENCIES.has(s);
      break;
    case 'path':
      ok = new RegExp(`^${type.template!.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(s);
      break;
  }
  return ok ? null : `${JSON.stringify(s)} is not ${type.format === 'path' ? type.template : type.format}`;
}

type Outcome = { field: ContractField & { base: { response: string; path: string } }; checked: number; problems: string[] };

/** Checks one parsed field at its place; a required field must be present wherever its parent is, and somewhere. */
function check(field: Outcome['field']): Outcome {
  const root = responses[field.base.response];
  const full = [field.base.path, field.path].filter(Boolean).join('.');
  const where = `${field.section} ${field.base.response}: ${full}`;
  if (root === undefined) return { field, checked: 0, problems: [`${where}: no response named ${field.base.response}`] };
  const { values, missing, notArrays } = lookUp(root, full);
  const problems = [
    ...(field.conditional ? [] : missing.map((m) => `${where}: missing (${m})`)),
    ...notArrays.map((m) => `${where}: ${m} is not an array`),
    ...values.flatMap((v, i) => {
      const bad = mismatch(v, field.type);
      return bad ? [`${where}${values.length > 1 ? ` #${i}` : ''}: ${bad}`] : [];
    }),
  ];
  return { field, checked: values.length, problems };
}

const outcomes = new Map<string, Outcome[]>();

describe("reading the contract's notation", () => {
  const typesOf = (text: string) => Object.fromEntries(flatten(parseList(text)).map((f) => [f.path, f.type]));

  it('types the untyped run a plural note closes, and nothing before the last typed name', () => {
    expect(typesOf('status, day `YYYY-MM-DD`, updatedAt (ISO), providerCount, channelCount (numbers)')).toEqual({
      status: {},
      day: { base: 'string', format: 'YYYY-MM-DD' },
      updatedAt: { base: 'string', format: 'iso' },
      providerCount: { base: 'number' },
      channelCount: { base: 'number' },
    });
    expect(typesOf('id, name, a, b (numbers for the last two)')).toEqual({
      id: {},
      name: {},
      a: { base: 'number' },
      b: { base: 'number' },
    });
  });

  it('reads nested objects and arrays of objects in each of the ways the contract writes them', () => {
    expect(typesOf('providers[] (id, available (boolean)), items[] of {start `HH:MM`}, runtime {lastStopAt (ISO or null)}')).toEqual({
      'providers[]': { base: 'array' },
      'providers[].id': {},
      'providers[].available': { base: 'boolean' },
      'items[]': { base: 'array' },
      'items[].start': { base: 'string', format: 'HH:MM' },
      runtime: { base: 'object' },
      'runtime.lastStopAt': { base: 'string', format: 'iso', nullable: true },
    });
  });

  it('keeps enumerations and stated values, and refuses a note it does not know rather than dropping it', () => {
    expect(parseNote('`queued`, `applied` or `failed`').type).toEqual({ base: 'string', values: ['queued', 'applied', 'failed'] });
    expect(parseNote('value `coming_soon`').type).toEqual({ base: 'string', values: ['coming_soon'] });
    expect(parseNote('15').type).toEqual({ base: 'number', values: [15] });
    expect(parseNote('string (present on the main resource)')).toEqual({ type: { base: 'string' }, conditional: true });
    expect(() => parseNote('a shade of blue')).toThrow(/not understood/);
    expect(() => parseList('a, b (numbers) extra')).toThrow();
  });
});

describe.each(SCOPE)('contract section %s', (section) => {
  it('names no field the real response lacks or types otherwise', () => {
    const mine = fields.filter((f) => f.section === section);
    expect(mine.length, `fields parsed in ${section}`).toBeGreaterThan(0);
    const results = mine.map(check);
    outcomes.set(section, results);
    const problems = results.flatMap((r) => r.problems);
    // A field checked nowhere (an empty list on the way, a conditional field the fixture never filled) is unchecked.
    const byField = new Map<string, number>();
    for (const r of results) {
      const key = r.field.conditional
        ? `${r.field.source} ${r.field.path}`
        : `${r.field.source} ${r.field.base.response} ${r.field.base.path} ${r.field.path}`;
      byField.set(key, (byField.get(key) ?? 0) + r.checked);
    }
    const unchecked = [...byField].filter(([, n]) => n === 0).map(([key]) => `no value to check: ${key}`);
    expect([...problems, ...unchecked]).toEqual([]);
  });
});

describe('contract 6.3 beyond the types', () => {
  it('sends nothing but the payload fields; `test` and an empty revision only on a test event; resource is the menu of the event', () => {
    const named = new Set(fields.filter((f) => f.section === '6.3').map((f) => f.path));
    for (const payload of [responses.webhookMenuUpdated, responses.webhookTest] as Record<string, unknown>[]) {
      expect(Object.keys(payload).filter((k) => !named.has(k))).toEqual([]);
    }
    expect(responses.webhookMenuUpdated).not.toHaveProperty('test');
    expect(responses.webhookTest).toHaveProperty('test', true);
    const menu = responses.webhookMenuUpdated as Record<string, string>;
    const test = responses.webhookTest as Record<string, string>;
    expect(test.revision).toBe('');
    expect(menu.revision).not.toBe('');
    // 6.3: the path `/v1/{group_id}/{location_id}/bevq/menu` of the payload's own group and location.
    for (const payload of [menu, test]) expect(payload.resource).toBe(`/v1/${payload.groupId}/${payload.locationId}/bevq/menu`);
  });
});

describe('the whole of it', () => {
  it('checked every parsed field against a real response', () => {
    const all = [...outcomes.values()].flat();
    const conditionalSeen = new Set(
      all.filter((o) => o.field.conditional && o.checked > 0).map((o) => `${o.field.source} ${o.field.path}`),
    );
    const checked = all.filter(
      (o) => o.problems.length === 0 && (o.checked > 0 || conditionalSeen.has(`${o.field.source} ${o.field.path}`)),
    );
    const presenceOnly = checked.filter((o) => o.field.type.base === undefined && !o.field.type.values).length;
    console.log(
      `contract fields checked: ${checked.length} of ${fields.length} (${presenceOnly} the contract names without a type, checked for presence)`,
    );
    console.log(`enumerations read from 2.8: ${Object.keys(enumerations).join(', ')}`);
    expect(all.length).toBe(fields.length);
    expect(checked.length).toBe(fields.length);
  });
});
