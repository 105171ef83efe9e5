import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newLocalCredentials } from '../local/engine-door.js';

/**
 * Memory that levels off: `npm run bench -- --soak [--minutes 10] [--rps 100]`.
 * The engines (dynalite, fauxqs) and the runtime (`npm start`: gateway and
 * handlers) run in processes of their own; each is sampled from inside
 * (bench/memory-probe.ts) while eight clients send a mix of routes. Prints
 * RSS and heap over time per process and the growth over the second half.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MiB = 1024 * 1024;

type Sample = { t: number; rss: number; heapUsed: number; liveHeap?: number };
type Proc = { child: ChildProcess; probe: string; output: () => string };

function startProcess(
  args: string[],
  env: Record<string, string>,
  probe: string,
  ready: RegExp,
): Promise<Proc & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--import', './bench/memory-probe.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, MEMORY_PROBE_FILE: probe, MEMORY_PROBE_MS: '5000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) resolve({ child, probe, output: () => output, match });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}:\n${output}`)));
  });
}

function samples(file: string): Sample[] {
  try {
    return readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Sample);
  } catch {
    return [];
  }
}

/** Least-squares slope of RSS in MiB per minute. */
function slopePerMinute(points: Sample[], pick: (s: Sample) => number): number {
  if (points.length < 2) return NaN;
  const xs = points.map((p) => p.t / 60_000);
  const ys = points.map((p) => pick(p) / MiB);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  const num = xs.reduce((a, x, i) => a + (x - mx) * (ys[i]! - my), 0);
  const den = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  return num / den;
}

function get(agent: Agent, url: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    if (body) req.write(body);
    req.end();
  });
}

export async function soak(minutes: number, rps: number): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'customer-api-soak-'));
  const procs: Proc[] = [];
  try {
    // The engines' credential, given to them and to the runtime that reaches them as external engines.
    const credentials = newLocalCredentials();
    const awsCredentials = { AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey };
    const engines = await startProcess(['bench/soak-engines.ts'], awsCredentials, join(dir, 'engines.jsonl'), /^(\{.*\})$/m);
    procs.push(engines);
    const { dynamoEndpoint, sqsEndpoint } = JSON.parse(engines.match[1]!) as { dynamoEndpoint: string; sqsEndpoint: string };
    const adminKey = 'soak-admin-key';
    const runtime = await startProcess(
      ['bin/local.ts', '--in-memory'],
      {
        PORT: '0',
        LOG_LEVEL: 'ERROR',
        ADMIN_API_KEY: adminKey,
        DYNAMODB_ENDPOINT: dynamoEndpoint,
        SQS_ENDPOINT: sqsEndpoint,
        ...awsCredentials,
        CUSTOMER_API_RUNTIME_FILE: join(dir, 'runtime.json'),
      },
      join(dir, 'runtime.jsonl'),
      /listening on (http:\/\/\S+)[\s\S]*curl -s/,
    );
    procs.push(runtime);
    const base = /listening on (http:\/\/\S+)/.exec(runtime.output())![1]!;
    const groupId = 'demo-group';

    // An application whose limit is above the soak's rate, so the soak measures work, not 429s.
    const created = await fetch(`${base}/admin/v1/apps`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        groupId,
        name: 'soak',
        scopes: ['locations:read', 'shiftq:read', 'sportsq:read', 'matriq:read', 'campaigns:read', 'orderboard:read', 'bevq:read'],
        rateLimitPerMinute: Math.ceil(rps * 60 * 2),
      }),
    });
    if (created.status !== 201) throw new Error(`soak app refused: ${created.status} ${await created.text()}`);
    const { app, clientSecret } = (await created.json()) as { app: { clientId: string }; clientSecret: string };
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: clientSecret }).toString();
    const tokenReply = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    const { access_token } = (await tokenReply.json()) as { access_token: string };
    const auth = { Authorization: `Bearer ${access_token}` };
    const menu = await fetch(`${base}/v1/${groupId}/nyc-midtown/bevq/menu`, { headers: auth });
    const etag = menu.headers.get('etag') ?? '"none"';
    const today = new Date().toISOString().slice(0, 10);

    // A mix like a customer backend's: discovery, every module, conditional menu reads, images, some errors.
    // Each with the status it must get: anything else counts as unexpected (a soak of 401s measures nothing).
    const mix: [number, (agent: Agent) => Promise<number>, number | number[]][] = [
      [20, (a) => get(a, `${base}/v1/${groupId}/locations`, auth), 200],
      [5, (a) => get(a, `${base}/v1/${groupId}/modules`, auth), 200],
      [5, (a) => get(a, `${base}/v1/${groupId}/nyc-midtown`, auth), 200],
      [15, (a) => get(a, `${base}/v1/${groupId}/nyc-midtown/bevq/menu`, { ...auth, 'If-None-Match': etag }), 304],
      [5, (a) => get(a, `${base}/v1/${groupId}/nyc-midtown/bevq/menu`, auth), 200],
      [5, (a) => get(a, `${base}/v1/${groupId}/bevq`, auth), 200],
      [8, (a) => get(a, `${base}/v1/${groupId}/nyc-midtown/shiftq`, auth), 200],
      [5, (a) => get(a, `${base}/v1/${groupId}/nyc-midtown/shiftq/kitchen`, auth), 200],
      [5, (a) => get(a, `${base}/v1/${groupId}/nyc-midtown/sportsq/provider`, auth), 200],
      [5, (a) => get(a, `${base}/v1/${groupId}/nyc-midtown/sportsq/${today}`, auth), 200],
      [5, (a) => get(a, `${base}/v1/${groupId}/nyc-midtown/matriq`, auth), 200],
      [4, (a) => get(a, `${base}/v1/${groupId}/campaigns`, auth), 200],
      [3, (a) => get(a, `${base}/v1/${groupId}/nyc-midtown/orderboard`, auth), 200],
      [4, (a) => get(a, `${base}/v1/assets/sports-logo/team-badge.png`, { Accept: '*/*' }), 200],
      [2, (a) => get(a, `${base}/v1/${groupId}/locations`, { Authorization: 'Bearer not-a-token-at-all' }), 401],
      [2, (a) => get(a, `${base}/v1/${groupId}/nowhere/at/all`, auth), 404],
      // ~50 exchanges a minute for one client id: past the token endpoint's 30 a minute, its 429 is the right answer.
      [1, (a) => get(a, `${base}/oauth/token`, { 'Content-Type': 'application/x-www-form-urlencoded' }, 'POST', form), [200, 429]],
    ];
    const weights = mix.reduce((a, [w]) => a + w, 0);
    const pickCall = () => {
      let r = Math.random() * weights;
      for (const entry of mix) if ((r -= entry[0]) < 0) return entry;
      return mix[0]!;
    };

    const lines: string[] = [
      `Soak: ${minutes} min at ~${rps} req/s from 8 clients, mixed routes; engines and runtime in separate processes (node ${process.version})`,
      '   min  requests   req/s  unexpected │ runtime RSS   heap   live │ engines RSS   heap   live   (MiB; live = heap after a full GC)',
    ];
    console.log(lines.join('\n'));
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const started = Date.now();
    const end = started + minutes * 60_000;
    let requests = 0;
    let unexpected = 0;
    const statuses = new Map<string, number>();
    const perClientGapMs = (8 * 1000) / rps;
    const client = async () => {
      while (Date.now() < end) {
        const t0 = Date.now();
        const [, call, expected] = pickCall();
        const status = await call(agent);
        requests++;
        if (!(Array.isArray(expected) ? expected.includes(status) : status === expected)) {
          unexpected++;
          const key = `${status} (expected ${String(expected)})`;
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
        }
        const wait = perClientGapMs - (Date.now() - t0);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    };
    const row = () => {
      const elapsed = (Date.now() - started) / 60_000;
      const mib = (n: number | undefined, width: number) => (n === undefined ? '–' : (n / MiB).toFixed(0)).padStart(width);
      const fmt = (file: string) => {
        const all = samples(file);
        const s = all.at(-1);
        return `${mib(s?.rss, 11)} ${mib(s?.heapUsed, 6)} ${mib(all.findLast((x) => x.liveHeap !== undefined)?.liveHeap, 6)}`;
      };
      const line = `${elapsed.toFixed(1).padStart(6)} ${String(requests).padStart(9)} ${(requests / ((Date.now() - started) / 1000)).toFixed(0).padStart(7)} ${String(unexpected).padStart(11)} │ ${fmt(runtime.probe)} │ ${fmt(engines.probe)}`;
      lines.push(line);
      console.log(line);
    };
    const ticker = setInterval(row, 30_000);
    await Promise.all(Array.from({ length: 8 }, client));
    clearInterval(ticker);
    row();
    agent.destroy();
    if (unexpected) {
      const line = `unexpected answers: ${[...statuses].map(([status, n]) => `${n} × ${status}`).join(', ')}`;
      lines.push(line);
      console.log(line);
    }

    const half = (file: string) => samples(file).filter((s) => s.t >= started + ((end - started) * 1) / 2);
    for (const [name, file] of [
      ['runtime', runtime.probe],
      ['engines', engines.probe],
    ] as const) {
      const second = half(file);
      const live = second.filter((s) => s.liveHeap !== undefined);
      const liveSlope = slopePerMinute(live, (s) => s.liveHeap!);
      const all = samples(file);
      const peak = Math.max(...all.map((s) => s.rss)) / MiB;
      const line =
        `${name}: RSS ${(all[0]!.rss / MiB).toFixed(0)} → ${(all.at(-1)!.rss / MiB).toFixed(0)} MiB (peak ${peak.toFixed(0)}); ` +
        `live heap over the second half ${(Math.min(...live.map((s) => s.liveHeap!)) / MiB).toFixed(0)}–${(Math.max(...live.map((s) => s.liveHeap!)) / MiB).toFixed(0)} MiB, trend ${liveSlope.toFixed(2)} MiB/min`;
      lines.push(line);
      console.log(line);
    }
    return lines;
  } finally {
    for (const p of procs.reverse()) {
      p.child.kill('SIGTERM');
      await new Promise((r) => (p.child.exitCode !== null ? r(null) : p.child.once('exit', r)));
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
