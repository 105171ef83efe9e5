import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MenuInput } from '#contract/schemas/bevq';
import { sampleMenu } from '#local/demo-menu';
import type { LocalRuntime } from '#local/runtime';
import { admin as cli, runtimeFileFor } from '../fixtures/admin-cli.js';
import { call, ENGINE_NAME, expectUnchanged, scanTable, startTestRuntime, tokenFor } from '../support/runtime.js';

/**
 * DynamoDB's limits as clients meet them over real HTTP (and ops through the
 * CLI): a menu too large for one item, numbers DynamoDB cannot store, ids too
 * long or odd to be keys. Each is a clear 4xx in the error shape (CLI: exit
 * 2) and changes nothing in the table.
 */

const ADMIN_KEY = 'storage-limits-admin-key-01';
const MENU = '/menus/demo-group/nyc-midtown';
let runtime: LocalRuntime;
let dir: string;

beforeAll(async () => {
  runtime = await startTestRuntime({ adminKey: ADMIN_KEY });
  dir = mkdtempSync(join(tmpdir(), 'storage-limits-'));
});
afterAll(async () => {
  await runtime?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function adminCall(method: string, path: string, body?: unknown) {
  const response = await fetch(`${runtime.url}/admin/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN_KEY}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** A menu of `items` beers whose descriptions are 2,000 UTF-16 code units of astral characters (4,000 bytes each). */
function astralMenu(items: number): MenuInput {
  const base = sampleMenu();
  const template = base.sections[1]!.items[0]!;
  return {
    ...base,
    sections: [
      {
        ...base.sections[1]!,
        items: Array.from({ length: items }, (_, i) => ({ ...template, id: `beer-${i}`, description: '🍺'.repeat(1000) })),
      },
    ],
  };
}

const errorShape = (code: string, status: number) => ({
  ok: false,
  version: 'v1',
  error: { code, status, message: expect.any(String), requestId: expect.any(String) },
});

describe(`the menu publish over HTTP on ${ENGINE_NAME}`, () => {
  it('stores a multi-byte menu near the limit and reads it back through /v1 unchanged', async () => {
    const menu = astralMenu(90); // ~360 KB in UTF-8, a third of that in characters
    const published = await adminCall('PUT', MENU, menu);
    expect(published.status).toBe(200);
    const { token } = await tokenFor(runtime, { scopes: ['bevq:read'] });
    const read = await call(runtime, '/v1/demo-group/nyc-midtown/bevq/menu', { token });
    expect(read.status).toBe(200);
    expect(read.body.data.menu.revision).toBe(published.body.revision);
    expect(read.body.data.menu.sections[0].items.map((i: { description: string }) => i.description)).toEqual(
      menu.sections[0]!.items.map((i) => i.description),
    );
  });

  it('refuses a menu too large for one DynamoDB item, counted in UTF-8 bytes, with 413 and changes nothing', async () => {
    const before = await scanTable(runtime);
    const menu = astralMenu(120); // ~480 KB in UTF-8 but only ~240,000 characters: a character count would let it through
    expect(JSON.stringify(menu).length).toBeLessThan(400 * 1024);
    const reply = await adminCall('PUT', MENU, menu);
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual(errorShape('payload_too_large', 413));
    expect(reply.body.error.message).toMatch(/409,600/);
    expectUnchanged(await scanTable(runtime), before);
  });

  it('refuses numbers outside their domain or beyond what DynamoDB stores exactly with 400 and changes nothing', async () => {
    const before = await scanTable(runtime);
    const withSize = (size: Record<string, unknown>) => {
      const menu = sampleMenu();
      const item = menu.sections[1]!.items[0]!;
      return { ...menu, sections: [{ ...menu.sections[1]!, items: [{ ...item, sizes: [{ ...item.sizes[0]!, ...size }] }] }] };
    };
    for (const size of [{ price: 1e200 }, { price: 1e-200 }, { price: 8.123456 }, { price: -1 }, { ounces: 1e-7 }, { ounces: 100_000 }]) {
      const reply = await adminCall('PUT', MENU, withSize(size));
      expect(reply.status, JSON.stringify(size)).toBe(400);
      expect(reply.body).toEqual(errorShape('invalid_request', 400));
      expect(reply.body.error.message).toMatch(/ounces|price/);
    }
    expectUnchanged(await scanTable(runtime), before);
  });

  it('refuses the same oversized menu from the admin CLI with exit 2 and changes nothing', async () => {
    const file = join(dir, 'menu.json');
    writeFileSync(file, JSON.stringify(astralMenu(200))); // ~800 KB: no body limit on this path, only the item's
    const before = await scanTable(runtime);
    const run = await cli(runtimeFileFor(runtime, dir, 'runtime.json'), [
      'menus',
      'publish',
      '--group',
      'demo-group',
      '--location',
      'nyc-midtown',
      '--file',
      file,
    ]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^error: Too large to store/);
    expectUnchanged(await scanTable(runtime), before);
  });
});

describe(`ids in paths on ${ENGINE_NAME}`, () => {
  const long = 'a'.repeat(3000);
  const odd = [long, `${'€'.repeat(700)}`, 'a%20b', '%F0%9F%8D%BA', 'locations', '-leading-dash', 'x'.repeat(65)];

  it('answers 404 on /v1 for an id too long or odd to name anything, before any credential or key is read', async () => {
    const { token } = await tokenFor(runtime, { scopes: ['matriq:read', 'matriq:ai-scheduler:stop', 'locations:read'] });
    const before = await scanTable(runtime);
    for (const segment of odd) {
      for (const [method, path] of [
        ['GET', `/v1/demo-group/${segment}/matriq/gateway`],
        ['POST', `/v1/demo-group/${segment}/matriq/aiScheduler/emergency-stop`],
        ['GET', `/v1/${segment}/locations`],
        ['GET', `/v1/${segment}/nyc-midtown/matriq/gateway`],
      ] as const) {
        for (const auth of [token, undefined]) {
          const reply = await call(runtime, path, {
            method,
            token: auth,
            ...(method === 'POST' ? { body: '{}', headers: { 'Content-Type': 'application/json' } } : {}),
          });
          expect(reply.status, `${method} ${path.slice(0, 60)}`).toBe(404);
          expect(reply.body).toEqual(errorShape('not_found', 404));
        }
      }
    }
    // Nothing was read for them: not even a rate counter moved.
    expectUnchanged(await scanTable(runtime), before);
  });

  it('answers 404 on /admin/v1 for a path id too long or odd to name anything, 400 for such an id in a query, and changes nothing', async () => {
    const before = await scanTable(runtime);
    for (const segment of odd) {
      for (const [method, path, body] of [
        ['GET', `/apps/${segment}`],
        ['POST', `/apps/${segment}/revoke`, {}],
        ['GET', `/destinations/${segment}`],
        ['DELETE', `/destinations/${segment}`],
        ['GET', `/dead-letters/${segment}`],
        ['PUT', `/menus/demo-group/${segment}`, sampleMenu()],
        ['PUT', `/menus/${segment}/nyc-midtown`, sampleMenu()],
      ] as const) {
        const reply = await adminCall(method, path, body);
        expect(reply.status, `${method} ${path.slice(0, 60)}`).toBe(404);
        expect(reply.body).toEqual(errorShape('not_found', 404));
      }
    }
    for (const query of [`groupId=${long}`, `groupId=${encodeURIComponent('€'.repeat(700))}`]) {
      const reply = await adminCall('GET', `/apps?${query}`);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(errorShape('invalid_request', 400));
    }
    expectUnchanged(await scanTable(runtime), before);
  });

  it('refuses an id too long to be a key from the admin CLI with exit 2: the admin API names nothing at that path', async () => {
    const before = await scanTable(runtime);
    const run = await cli(runtimeFileFor(runtime, dir, 'runtime.json'), ['apps', 'show', long]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toBe('error: No admin resource exists at this path.\n');
    expectUnchanged(await scanTable(runtime), before);
  });
});
