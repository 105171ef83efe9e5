import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '#admin-cli/run';
import type { RuntimeFile } from '#local/runtime-file';
import type { LocalRuntime } from '#local/runtime';
import { call, manualClock, scanTable, startTestRuntime, tokenFor } from '../support/runtime.js';

/** `shiftq load` of the admin CLI against a real local runtime (through its admin API), then read back over HTTP. */

let runtime: LocalRuntime;
let dir: string;
let env: NodeJS.ProcessEnv;
const clock = manualClock();

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
  dir = mkdtempSync(join(tmpdir(), 'shiftq-cli-'));
  const info: RuntimeFile = {
    url: runtime.url,
    pid: process.pid,
    region: 'us-east-1',
    tableName: runtime.tableName,
    ...runtime.engines,
    ...runtime.queues,
    adminKey: runtime.adminKey,
  };
  writeFileSync(join(dir, 'runtime.json'), JSON.stringify(info));
  env = { ...process.env, CUSTOMER_API_RUNTIME_FILE: join(dir, 'runtime.json') };
});
afterAll(async () => {
  await runtime?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function admin(args: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => (out += t), err: (t) => (err += t), env });
  return { code, out, err };
}

const file = (name: string, body: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(body));
  return path;
};

const sales = {
  updatedAt: '2026-11-22T11:00:00Z',
  currency: 'USD',
  grossSales: 500,
  netSales: 432.1,
  discounts: 10,
  voids: 2,
  refunds: 0,
  tax: 30,
  tips: 60,
  orderCount: 12,
  guestCount: 20,
};

describe('admin: shiftq load', () => {
  it('loads every entry of a file and reports them as JSON', async () => {
    const path = file('load.json', {
      entries: [
        { kind: 'sales', businessDate: '20261121', data: sales },
        {
          kind: 'posMenu',
          data: {
            updatedAt: '2026-11-22T11:00:00Z',
            stockUpdatedAt: '2026-11-22T11:55:00Z',
            currency: 'USD',
            groups: [{ id: 'g', name: 'Mains', items: [{ id: 'a', name: 'A', price: 5, soldOut: true }] }],
          },
        },
      ],
    });
    // The load observes its source after the demo seed did: its data is the newer.
    clock.advance(1000);
    const run = await admin(['shiftq', 'load', '--group', 'demo-group', '--location', 'denver-union', '--file', path, '--json']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toEqual({
      loaded: [
        { kind: 'sales', businessDate: '20261121', records: 1 },
        { kind: 'posMenu', businessDate: null, records: 1 },
      ],
    });
    const { token } = await tokenFor(runtime, { scopes: ['shiftq:read'] });
    const read = await call(runtime, '/v1/demo-group/denver-union/shiftq/sales?businessDate=20261121', { token });
    expect(read.body.data.sales.netSales).toBe(432.1);
    const pos = await call(runtime, '/v1/demo-group/denver-union/shiftq/pos-menu', { token });
    expect(pos.body.data).toMatchObject({ itemCount: 1, soldOutItemCount: 1 });
  });

  it('accepts a single entry and prints a line per entry', async () => {
    const run = await admin([
      'shiftq',
      'load',
      '--group',
      'demo-group',
      '--location',
      'denver-union',
      '--file',
      file('one.json', {
        kind: 'labor',
        businessDate: '20261121',
        data: { updatedAt: '2026-11-22T11:00:00Z', currency: 'USD', roles: [] },
      }),
    ]);
    expect(run.code).toBe(0);
    expect(run.out).toBe('Loaded labor for 20261121 (1 record(s)) at demo-group/denver-union.\n');
  });

  it('refuses a file with one bad entry with exit code 2 and writes nothing', async () => {
    const before = (await scanTable(runtime)).length;
    const path = file('bad.json', {
      entries: [
        { kind: 'sales', businessDate: '20261120', data: sales },
        { kind: 'sales', businessDate: '20260230', data: sales },
      ],
    });
    const run = await admin(['shiftq', 'load', '--group', 'demo-group', '--location', 'denver-union', '--file', path]);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/businessDate/);
    expect((await scanTable(runtime)).length).toBe(before);
  });
});
