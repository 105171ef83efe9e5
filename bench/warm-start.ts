import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './load.js';
import { freePort, ROOT, sleep, startChild, type Child } from './processes.js';

/**
 * Warm start: `npm start` on a data folder that already exists (the table,
 * the demo application and its credentials on disk), from spawning the
 * process to its first successful answer (GET /v1/openapi.json), and to the
 * first token (POST /oauth/token with the demo credentials, sent right after).
 * Beside it, measured the same way in the same run: a bare node:http server
 * started by the same launcher (node --import tsx), the floor of starting
 * Node with TypeScript on this machine. The runtime runs as npm's script
 * does (`tsx bin/local.ts` is Node with the tsx loader); one run through
 * `npm start` itself shows what npm adds.
 */
const RUNS = Number(process.env.BENCH_START_RUNS ?? 5);
const GOAL_MS = 3000;

type Start = { answerMs: number; tokenMs: number | null };

/** Spawns, then polls until `url` answers 200; a request sent while the runtime holds requests waits for it. */
async function timeStart(
  launch: (port: number) => Child | { child: ReturnType<typeof spawn>; stop(): Promise<unknown> },
  path: string,
  token?: () => URLSearchParams,
): Promise<Start> {
  const port = await freePort();
  const started = performance.now();
  const proc = launch(port);
  try {
    const deadline = started + 60_000;
    let answerMs: number | null = null;
    while (answerMs === null) {
      if (performance.now() > deadline) throw new Error(`no answer on port ${port} within 60 s`);
      if (proc.child.exitCode !== null) throw new Error(`the process exited (${proc.child.exitCode}) before answering`);
      try {
        const reply = await fetch(`http://127.0.0.1:${port}${path}`);
        await reply.arrayBuffer();
        if (reply.status === 200) answerMs = performance.now() - started;
      } catch {
        // not listening yet
      }
      if (answerMs === null) await sleep(10);
    }
    let tokenMs: number | null = null;
    if (token) {
      const reply = await fetch(`http://127.0.0.1:${port}/oauth/token`, { method: 'POST', body: token() });
      await reply.arrayBuffer();
      if (reply.status === 200) tokenMs = performance.now() - started;
    }
    return { answerMs, tokenMs };
  } finally {
    await proc.stop();
  }
}

export async function benchWarmStart(): Promise<string[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'customer-api-start-'));
  const dataDir = join(scratch, 'data');
  const env = (port: number) => ({ PORT: String(port), LOG_LEVEL: 'SILENT', CUSTOMER_API_RUNTIME_FILE: join(scratch, 'runtime.json') });
  const runtime = (port: number) => startChild(['bin/local.ts', '--data', dataDir], env(port));
  const demoForm = () => {
    const { clientId, clientSecret } = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8')) as {
      clientId: string;
      clientSecret: string;
    };
    return new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  };
  try {
    // The first start creates the data folder: the table, the demo group, its application.
    const cold = await timeStart(runtime, '/v1/openapi.json', demoForm);
    const warm: Start[] = [];
    const bare: Start[] = [];
    for (let i = 0; i < RUNS; i++) {
      warm.push(await timeStart(runtime, '/v1/openapi.json', demoForm));
      bare.push(await timeStart((port) => startChild(['bench/bare-server.ts'], { PORT: String(port) }), '/'));
    }
    const viaNpm = await timeStart((port) => npmStart(dataDir, env(port)), '/v1/openapi.json', demoForm);
    const ms = (value: number | null) => (value === null ? '–' : `${(value / 1000).toFixed(2)} s`);
    const warmAnswer = median(warm.map((s) => s.answerMs));
    const bareAnswer = median(bare.map((s) => s.answerMs));
    return [
      `Start to first answer (spawn → GET /v1/openapi.json 200; then → first token), median of ${RUNS} (node ${process.version})`,
      `  warm (data folder exists)      ${ms(warmAnswer).padStart(7)}   token ${ms(median(warm.map((s) => s.tokenMs ?? NaN)))}   (goal ≤ ${GOAL_MS / 1000} s)   runs: ${warm.map((s) => ms(s.answerMs)).join(', ')}`,
      `  baseline: bare node:http, tsx  ${ms(bareAnswer).padStart(7)}   runtime ÷ baseline ×${(warmAnswer / bareAnswer).toFixed(1)}`,
      `  cold (first start, seeds)      ${ms(cold.answerMs).padStart(7)}   token ${ms(cold.tokenMs)}`,
      `  warm through \`npm start\`       ${ms(viaNpm.answerMs).padStart(7)}   token ${ms(viaNpm.tokenMs)}   (npm and the tsx CLI add their own start)`,
    ];
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `npm start -- --data DIR`, literally; stopped like Ctrl-C (npm forwards the signal to the whole group). */
function npmStart(dataDir: string, env: Record<string, string>) {
  const npm = process.env.npm_execpath;
  const child = npm
    ? spawn(process.execPath, [npm, 'start', '--silent', '--', '--data', dataDir], {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: 'ignore',
        detached: true,
      })
    : spawn('npm', ['start', '--silent', '--', '--data', dataDir], {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: 'ignore',
        detached: true,
      });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    child,
    async stop() {
      process.kill(-child.pid!, 'SIGINT');
      const kill = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(kill);
    },
  };
}
