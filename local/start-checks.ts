import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { OWNER_FILE, OWNER_FOLDER, ownerOnly } from './owner-only.js';

/**
 * What stops a local start before it begins, said in one line: `npm start` prints the message alone (no stack)
 * and exits 1. Anything else that goes wrong is a bug and keeps its stack.
 */
export class LocalStartError extends Error {
  override name = 'LocalStartError';
}

/** The lock a running runtime holds on its data folder: who, and where it answers once it does. */
export const LOCK_FILE = 'runtime.lock';
type LockInfo = { pid: number; started?: string | null; url?: string };

export type DataLock = { file: string; setUrl(url: string): void; release(): void };

/**
 * One runtime per data folder: dynalite's LevelDB refuses a second opener, and two runtimes would share one
 * `demo-credentials.json`. Taken atomically (`wx`) before any engine starts; a lock whose process is gone, or
 * whose pid now belongs to a process started at another moment (a reused pid), is stale and taken over.
 * The folder and what it holds are made owner-only first, at every start (owner-only.ts).
 */
export function acquireDataLock(dataDir: string): DataLock {
  mkdirSync(dataDir, { recursive: true, mode: OWNER_FOLDER });
  ownerOnly(dataDir);
  const file = join(dataDir, LOCK_FILE);
  const mine: LockInfo = { pid: process.pid, started: processStart(process.pid) };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx', OWNER_FILE);
      writeSync(fd, `${JSON.stringify(mine)}\n`);
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw err;
    }
    const holder = readLock(file);
    if (holder && holder.pid !== process.pid && alive(holder)) {
      const where = holder.url ?? 'still starting';
      throw new LocalStartError(
        `the local runtime is already running on ${dataDir} (pid ${holder.pid}, ${where}): stop it (Ctrl-C, or kill ${holder.pid}) or start another with --data DIR or --in-memory and another PORT`,
      );
    }
    rmSync(file, { force: true }); // stale: its runtime died without removing it
  }
  let released = false;
  return {
    file,
    setUrl(url) {
      if (!released) writeFileSync(file, `${JSON.stringify({ ...mine, url })}\n`, { mode: OWNER_FILE });
    },
    release() {
      if (released) return;
      released = true;
      // Only our own: a lock some later runtime took over (ours was judged stale) stays its.
      if (readLock(file)?.pid === process.pid) rmSync(file, { force: true });
    },
  };
}

function readLock(file: string): LockInfo | null {
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as LockInfo;
    return Number.isInteger(info.pid) && info.pid > 0 ? info : null;
  } catch {
    return null; // unreadable or half-written: nobody provable holds it
  }
}

function alive(holder: LockInfo): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false; // ESRCH: gone
  }
  // Where the system says when a process started (Linux), a pid reused by another process is told apart.
  const started = processStart(holder.pid);
  return !(holder.started && started && started !== holder.started);
}

/** A process's start time in clock ticks since boot (Linux /proc), or null where there is no /proc. */
function processStart(pid: number): string | null {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return null;
  try {
    // Fields after the command name (which may hold spaces and parentheses): state is the 3rd field, starttime the 22nd.
    const text = readFileSync(stat, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** The message for a port the gateway cannot have. */
export function portMessage(port: number, code: string | undefined): string | null {
  if (code === 'EADDRINUSE') return `port ${port} is in use: set PORT=… or stop what listens there`;
  if (code === 'EACCES') return `port ${port} needs privileges this user lacks: set PORT=… (1024 or higher)`;
  return null;
}

/** Fails fast, before any engine starts or anything is seeded, when the gateway's port is taken. */
export async function checkPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      const message = portMessage(port, err.code);
      reject(message ? new LocalStartError(message) : err);
    });
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/**
 * An engine the user started beside `npm start` (DynamoDB Local, LocalStack) may still be starting (docs/development.md
 * starts the jar in the background and `npm start` at once): wait until its port takes a connection, saying so
 * once, up to `timeoutMs`; then one line on what to do. A name that does not resolve fails at once.
 */
export async function waitForEndpoint(
  endpoint: string,
  variable: string,
  { timeoutMs = 30_000, say = (line: string) => console.error(line) } = {},
): Promise<void> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new LocalStartError(`${variable}=${endpoint} is not a URL: give one such as http://localhost:8000`);
  }
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const deadline = Date.now() + timeoutMs;
  let said = false;
  for (;;) {
    const code = await connectOnce(host, port);
    if (code === null) return;
    if (!['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT'].includes(code)) {
      throw new LocalStartError(
        `${variable}=${endpoint} cannot be reached (${code}): check the address, or unset ${variable} to use the embedded engine`,
      );
    }
    if (Date.now() >= deadline) {
      throw new LocalStartError(
        `nothing answers at ${variable}=${endpoint} after ${Math.round(timeoutMs / 1000)} s: start that engine first (docs/development.md, "Running against other engines"), or unset ${variable} to use the embedded one`,
      );
    }
    if (!said) {
      say(`waiting for ${variable}=${endpoint} to answer…`);
      said = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** null once a TCP connection opens, else the error's code. */
function connectOnce(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(5_000, () => socket.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    socket.once('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}
