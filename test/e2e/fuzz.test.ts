import { request, Agent } from 'node:http';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROUTES } from '#contract/admin-routes';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { seededRandom } from '#ingest/seeded-random';
import type { LocalRuntime } from '#local/runtime';
import { ENGINE_NAME, scanTable, startTestRuntime, tokenFor } from '../support/runtime.js';

/**
 * Never a 5xx from input: a seeded stream of hostile requests (paths, queries,
 * headers, bodies, prototype-named keys, multi-byte text, oversized values)
 * over the token endpoint, every /v1 route and every /admin/v1 route. It fails
 * on any 5xx, on any stack or file path in a reply, and on any change to the
 * table or the webhook queue other than rate counters and issued tokens.
 * FUZZ_SEED and FUZZ_REQUESTS replay or widen a run.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2000);

const PROTO_NAMES = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf', '__defineGetter__'];
const MULTIBYTE = ['café', 'Ünïcödé', '日本語のメニュー', '🍺🍷🥃', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', 'ﷺ', '\u202Eevil', 'a\u0000b', '\uFFFD'];

/** Raw path segments, sent as is (already percent-encoded where they must be). */
const HOSTILE_SEGMENTS = [
  'a'.repeat(3000),
  'b'.repeat(1025),
  'x'.repeat(65),
  ...PROTO_NAMES,
  '%00',
  '%ff',
  '%c3%28',
  '%',
  '%2e%2e',
  '%2F',
  '%20',
  "'%20OR%20'1'='1",
  '%3Cscript%3E',
  '-',
  '_',
  'UPPER',
  '2026-02-30',
  '99999999',
  ...MULTIBYTE.map(encodeURIComponent),
  encodeURIComponent('🍺'.repeat(400)),
];

const HOSTILE_VALUES = [
  '',
  ' ',
  '-1',
  '0',
  '1e309',
  '-0',
  'NaN',
  'Infinity',
  '9'.repeat(400),
  '0.000000000000000000000000000000000000001',
  '20260230',
  '20261340',
  '00000000',
  '2026-11-23',
  'null',
  'true',
  '[]',
  '{}',
  'x'.repeat(5000),
  ...PROTO_NAMES,
  ...MULTIBYTE,
];

const LATIN1_HEADER_VALUES = ['', ' ', 'x'.repeat(8000), 'W/"', '"', '*', 'W/W/"x"', '\t', 'Ã©', 'a, b, , ,', '0'.repeat(300)];

const HOSTILE_BODIES = [
  '',
  '{',
  '[',
  'null',
  '"text"',
  '42',
  '1e309',
  '[]',
  '{}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"prototype":1,"hasOwnProperty":2}',
  '['.repeat(20000),
  `{"name":"${'𝔘'.repeat(60000)}"}`,
  `{"name":"${'x'.repeat(500000)}"}`,
  '{"sections":[{"id":"s","name":"S","sortOrder":1e200,"enabled":true,"items":[]}]}',
  '{"sections":[{"id":"s","name":"S","sortOrder":1,"enabled":true,"items":[{"id":"i","name":"I","abv":1e-200}]}]}',
  '{"groupId":"demo-group","name":"x","scopes":["bevq:read"],"rateLimitPerMinute":1e300}',
  '{"groupId":"demo-group","name":"x","scopes":["nope"]}',
  '{"clientId":"app_x","name":"n","url":"https://169.254.169.254/latest"}',
  '{"clientId":"app_x","name":"n","url":"http://example.com"}',
  '{"locationId":"' + 'l'.repeat(3000) + '"}',
  '{"a":' + '{"a":'.repeat(5000) + '1' + '}'.repeat(5001),
  '\u0000\u0001\u0002',
  '\uFEFF{}',
  'grant_type=client_credentials&client_id=__proto__&client_secret=constructor',
  'grant_type=client_credentials&grant_type=client_credentials',
  'constructor=1&hasOwnProperty=2&__proto__=3&grant_type=client_credentials',
  '%ff%fe=%00',
];

const CONTENT_TYPES = [
  'application/json',
  'application/x-www-form-urlencoded',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  '*/*',
  'x'.repeat(2000),
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

type Reply = { status: number; body: string };

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function send(base: string, method: string, path: string, headers: Record<string, string>, body: string | null): Promise<Reply> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: body === null ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (body !== null) req.write(body);
    req.end();
  });
}

/** What a reply must never carry: stack frames, file paths or source positions. */
const LEAK = /\n\s+at |node_modules|\/work\/|\/home\/|\/var\/task|file:\/\/|\.[cm]?[jt]s:\d+/;

/** Items every request may write: rate-limit counters and issued tokens. */
const MAY_CHANGE = /^(RATE#|TOKEN#)/;
/** The contract's one state-changing /v1 action: a stop the fuzz happened to send well-formed is queued, as it should be. */
const EMERGENCY_STOP = /\/matriq\/aiScheduler\/emergency-stop(\?|$)/;
/** The admin changes whose effect is the token key's versions item. */
const TOKEN_KEY_CHANGE = /^\/admin\/v1\/token-keys\/[^/?]+(\/revoke)?(\?|$)/;

async function stateOf(runtime: LocalRuntime) {
  const items = (await scanTable(runtime)).filter((item) => !MAY_CHANGE.test(String(item.PK)));
  const rows = items.map((item) => JSON.stringify(item, Object.keys(item).sort())).sort();
  const queues = await Promise.all(
    [runtime.queues.webhookQueueUrl, runtime.queues.webhookDlqUrl].map(async (QueueUrl) => {
      const { Attributes } = await runtime.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      return Attributes;
    }),
  );
  return { rows, queues };
}

let runtime: LocalRuntime;
let token: string;

beforeAll(async () => {
  runtime = await startTestRuntime();
  const app = await tokenFor(runtime, {
    scopes: [
      'locations:read',
      'shiftq:read',
      'sportsq:read',
      'matriq:read',
      'matriq:ai-scheduler:stop',
      'campaigns:read',
      'orderboard:read',
      'bevq:read',
    ],
    rateLimitPerMinute: 10_000,
  });
  token = app.token;
  // The review page-token key is created on the first reviews read: create it before the state is taken.
  await send(runtime.url, 'GET', '/v1/demo-group/nyc-midtown/shiftq/reviews', { Authorization: `Bearer ${token}` }, null);
});
afterAll(async () => {
  agent.destroy();
  await runtime?.stop();
});

describe(`fuzz on ${ENGINE_NAME}: never a 5xx from input`, () => {
  it(`answers ${REQUESTS} hostile requests (seed ${SEED}) with 2xx-4xx, no leak, no state change`, async () => {
    const random = seededRandom(SEED);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const chance = (p: number) => random() < p;

    const templates = [
      ...ROUTES.map((r) => ({ method: r.method, path: r.path })),
      ...ADMIN_ROUTES.map((r) => ({ method: r.method, path: r.path })),
    ];
    const valid: Record<string, string> = {
      group_id: 'demo-group',
      location_id: 'nyc-midtown',
      date: '2026-11-22',
      groupId: 'demo-group',
      locationId: 'nyc-midtown',
    };

    const before = await stateOf(runtime);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let stopsAccepted = 0;
    let changesAccepted = 0;
    let tokenKeysChanged = false;
    for (let i = 0; i < REQUESTS; i++) {
      const template = pick(templates);
      const method = chance(0.7) ? template.method : pick(METHODS);
      let path = template.path.replace(/\{(\w+)\+?\}/g, (_, name: string) =>
        valid[name] && chance(0.4) ? valid[name] : pick(HOSTILE_SEGMENTS),
      );
      if (chance(0.1)) path += `/${pick(HOSTILE_SEGMENTS)}`;
      if (chance(0.5)) {
        const n = 1 + Math.floor(random() * 4);
        const pairs = Array.from({ length: n }, () => {
          const name = chance(0.4)
            ? pick(PROTO_NAMES)
            : pick(['businessDate', 'businessDay', 'date', 'limit', 'pageToken', 'groupId', 'clientId', 'minRating', 'provider', 'x']);
          return `${encodeURIComponent(name)}=${encodeURIComponent(pick(HOSTILE_VALUES))}`;
        });
        if (chance(0.2)) pairs.push(pairs[0]!);
        path += `?${pairs.join('&')}`;
      }
      const headers: Record<string, string> = {};
      const isAdmin = path.startsWith('/admin');
      if (isAdmin) headers.Authorization = chance(0.85) ? `Bearer ${runtime.adminKey}` : `Bearer ${pick(LATIN1_HEADER_VALUES)}`;
      else if (chance(0.8)) headers.Authorization = `Bearer ${token}`;
      else if (chance(0.5))
        headers.Authorization = pick([
          `Bearer ${'a'.repeat(600)}`,
          'Basic Og==',
          'Basic !!!',
          'Bearer',
          `Bearer ${token}x`,
          'Digest x',
          ...LATIN1_HEADER_VALUES,
        ]);
      if (chance(0.3)) headers[pick(PROTO_NAMES)] = pick(LATIN1_HEADER_VALUES);
      if (chance(0.3)) headers['If-None-Match'] = pick(LATIN1_HEADER_VALUES);
      if (chance(0.3)) headers.Accept = pick(['*/*', 'image/*', 'text/html,*/*;q=0.8', 'application/json', ...LATIN1_HEADER_VALUES]);
      if (chance(0.2)) headers['Idempotency-Key'] = pick(LATIN1_HEADER_VALUES);
      let body: string | null = null;
      if (method !== 'GET' && method !== 'HEAD' && chance(0.8)) {
        body = pick(HOSTILE_BODIES);
        headers['Content-Type'] = chance(0.7)
          ? path === '/oauth/token'
            ? 'application/x-www-form-urlencoded'
            : 'application/json'
          : pick(CONTENT_TYPES);
      }

      let reply: Reply;
      try {
        reply = await send(runtime.url, method, path, headers, body);
      } catch (err) {
        failures.push(`#${i} ${method} ${path.slice(0, 120)}: no reply (${(err as Error).message})`);
        continue;
      }
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      if (method === 'POST' && EMERGENCY_STOP.test(path) && reply.status < 300) stopsAccepted += 1;
      // An admin change the API accepted (a well-formed one can get through, e.g. redriving no dead letters) is audited.
      if (isAdmin && method !== 'GET' && method !== 'HEAD' && reply.status < 300) {
        changesAccepted += 1;
        if (TOKEN_KEY_CHANGE.test(path)) tokenKeysChanged = true;
      }
      if (reply.status >= 500 || reply.status < 200)
        failures.push(`#${i} ${method} ${path.slice(0, 120)} → ${reply.status} ${reply.body.slice(0, 200)}`);
      else if (LEAK.test(reply.body))
        failures.push(`#${i} ${method} ${path.slice(0, 120)} → ${reply.status} leaks: ${reply.body.slice(0, 300)}`);
    }
    const after = await stateOf(runtime);
    const stops = after.rows.filter((row) => row.startsWith('{"PK":"MATRIQ_COMMAND#') && !before.rows.includes(row));
    const audited = after.rows.filter((row) => row.startsWith('{"PK":"AUDIT#') && !before.rows.includes(row));
    // A well-formed rotation or revocation of the token key the fuzz happened to send changes the key's versions, as it should.
    const keyVersions = (row: string) => tokenKeysChanged && row.startsWith('{"PK":"TOKEN_KEY"');
    const added = after.rows.filter(
      (row) => !before.rows.includes(row) && !stops.includes(row) && !audited.includes(row) && !keyVersions(row),
    );
    const removed = before.rows.filter((row) => !after.rows.includes(row) && !keyVersions(row));

    console.log(
      `fuzz on ${ENGINE_NAME}: ${REQUESTS} requests (seed ${SEED}); statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; ` +
        `${failures.length} failures; ${added.length + removed.length} state changes; ${stopsAccepted} well-formed emergency stops queued`,
    );
    expect(failures.slice(0, 20)).toEqual([]);
    expect({ added: added.map((r) => r.slice(0, 300)), removed: removed.map((r) => r.slice(0, 300)) }).toEqual({ added: [], removed: [] });
    expect(stops).toHaveLength(stopsAccepted);
    expect(audited).toHaveLength(changesAccepted);
    expect(after.queues).toEqual(before.queues);
  });
});
