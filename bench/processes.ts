import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCOPES } from '#contract/scopes';

/** The repository root: every child runs from here, as `npm start` does. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export type Child = {
  child: ChildProcess;
  pid: number;
  output(): string;
  /** Resolves with the first match of `pattern` in stdout + stderr (rejects if the process exits first or after `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** SIGINT (npm start's Ctrl-C), then SIGKILL after 10 s; resolves with the exit code. */
  stop(): Promise<number | null>;
};

/** A TypeScript entry under Node with tsx, as `npm start` runs bin/local.ts (same Node: process.execPath). */
export function startChild(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): Child {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    // Keep the head (banners) and a tail; a chatty child must not grow this without bound.
    if (output.length > 1_000_000) output = output.slice(0, 100_000) + output.slice(-100_000);
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    pid: child.pid!,
    output: () => output,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (!match) return;
          done();
          resolve(match);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${args.join(' ')}: no ${pattern} within ${timeoutMs} ms:\n${output.slice(-2000)}`));
        }, timeoutMs);
        const onExit = (code: number | null) => {
          done();
          reject(new Error(`${args.join(' ')} exited (${code}) before ${pattern}:\n${output.slice(-2000)}`));
        };
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', onExit);
        };
        listeners.add(check);
        child.once('exit', onExit);
        check();
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGINT');
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(kill);
      return code;
    },
  };
}

/**
 * Runs a bench file in a child of its own with `flag`=1 (the receivers' test CA trusted the standard way,
 * NODE_EXTRA_CA_CERTS) and answers with the JSON of the last line it prints; `what` names it in a failure.
 */
export function jsonFromChild<T>(file: string, flag: string, timeoutMs: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', file],
      {
        cwd: ROOT,
        timeout: timeoutMs,
        env: {
          ...process.env,
          [flag]: '1',
          NODE_EXTRA_CA_CERTS: 'test/fixtures/tls/ca.pem',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
      },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${what} failed: ${stderr.trim().split('\n').at(-1) ?? err.message}`));
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as T);
      },
    );
  });
}

/** Children that print one JSON line when ready (bench/*-server.ts) answer with it here. */
export async function readyLine<T>(child: Child, timeoutMs = 60_000): Promise<T> {
  const match = await child.waitFor(/^READY (\{.*\})$/m, timeoutMs);
  return JSON.parse(match[1]!) as T;
}

/** `npm start --in-memory` in a child, quiet, with a known admin key and its runtime file in a scratch folder. */
export async function startRuntimeChild(extraArgs: string[] = ['--in-memory'], env: Record<string, string> = {}, nodeArgs: string[] = []) {
  const scratch = mkdtempSync(join(tmpdir(), 'customer-api-bench-'));
  const adminKey = 'bench-admin-key';
  const proc = startChild(
    ['bin/local.ts', ...extraArgs],
    {
      PORT: '0',
      LOG_LEVEL: 'SILENT',
      ADMIN_API_KEY: adminKey,
      CUSTOMER_API_RUNTIME_FILE: join(scratch, 'runtime.json'),
      ...env,
    },
    nodeArgs,
  );
  try {
    const url = (await proc.waitFor(/listening on (http:\/\/\S+)[\s\S]*curl -s/))[1]!.replace(/\/$/, '');
    const groupId = /curl -s \S+\/v1\/(\S+)\/locations/.exec(proc.output())?.[1] ?? 'demo-group';
    return {
      ...proc,
      url,
      adminKey,
      groupId,
      async stop() {
        const code = await proc.stop();
        rmSync(scratch, { recursive: true, force: true });
        return code;
      },
    };
  } catch (err) {
    await proc.stop();
    rmSync(scratch, { recursive: true, force: true });
    throw err;
  }
}

/** Every /v1 read scope: what a bench application holds. */
export const BENCH_SCOPES = SCOPES.filter((scope) => scope.endsWith(':read'));

/** A bearer token for an application with every /v1 read scope and a limit the bench never meets, made through the admin API. */
export async function benchToken(runtime: { url: string; adminKey: string; groupId: string }, rateLimitPerMinute: number): Promise<string> {
  const created = await fetch(`${runtime.url}/admin/v1/apps`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${runtime.adminKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      groupId: runtime.groupId,
      name: 'bench',
      scopes: BENCH_SCOPES,
      rateLimitPerMinute,
    }),
  });
  if (created.status !== 201) throw new Error(`bench app refused: ${created.status} ${await created.text()}`);
  const { app, clientSecret } = (await created.json()) as { app: { clientId: string }; clientSecret: string };
  const reply = await fetch(`${runtime.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: clientSecret }),
  });
  if (reply.status !== 200) throw new Error(`bench token refused: ${reply.status} ${await reply.text()}`);
  const { access_token } = (await reply.json()) as { access_token: string };
  return access_token;
}

export { freePort } from '#local/dynamodb-local';

/**
 * CPU time (user + system, ms) and wake-ups of a process, from /proc; null elsewhere. A wake-up is a
 * voluntary context switch of any of its threads: each time one wakes (a timer, a socket) it runs and
 * goes back to sleep, which counts one.
 */
export function processCounters(pid: number): { cpuMs: number; wakeups: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 (utime, stime) counted from 1; after the comm field they are indexes 11 and 12.
    const ticks = Number(fields[11]) + Number(fields[12]);
    let wakeups = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      for (const match of status.matchAll(/^voluntary_ctxt_switches:\s+(\d+)$/gm)) wakeups += Number(match[1]);
    }
    return { cpuMs: (ticks * 1000) / CLOCK_TICKS, wakeups };
  } catch {
    return null;
  }
}

/** USER_HZ: 100 on every Linux the kernel ABI allows (getconf CLK_TCK). */
const CLOCK_TICKS = 100;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
