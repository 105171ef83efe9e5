import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { LocalCredentials } from './engine-door.js';
import { OWNER_FILE, OWNER_FOLDER } from './owner-only.js';

/**
 * While `npm start` runs it records its endpoints in a file of its own under `.local/`, so the admin CLI and
 * `npm run listen` reach the same engines without flags: one file per data folder (one runtime each at a time),
 * or per port for a runtime in memory. CUSTOMER_API_RUNTIME_FILE names one file instead, for every runtime.
 */
const RUNTIME_FILE_ENV = 'CUSTOMER_API_RUNTIME_FILE';
const DEFAULT_FOLDER = join(process.cwd(), '.local');

/** The data folder `npm start` uses unless told (`--data`); the CLI looks for that folder's runtime. */
export const defaultDataDir = (env: NodeJS.ProcessEnv) => env.CUSTOMER_API_DATA_DIR || '.data';

/** The file a runtime on `dataDir` (null: in memory) and `port` records itself in. */
export function runtimeFileOf(dataDir: string | null, port: number, env: NodeJS.ProcessEnv = process.env): string {
  const moved = env[RUNTIME_FILE_ENV];
  if (moved) return moved;
  const name = dataDir ? `data-${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12)}` : `port-${port}`;
  return join(DEFAULT_FOLDER, `runtime-${name}.json`);
}

/**
 * The runtime a command talks to: the file named (`--runtime-file`, CUSTOMER_API_RUNTIME_FILE); else the running
 * one on `port`; else the one on the default data folder. Null with `port` when none runs there.
 */
export function chosenRuntimeFile(choice: { file?: string | undefined; port?: number | undefined }, env: NodeJS.ProcessEnv): string | null {
  if (choice.file) return choice.file;
  if (choice.port === undefined) return runtimeFileOf(defaultDataDir(env), 0, env);
  if (env[RUNTIME_FILE_ENV]) return env[RUNTIME_FILE_ENV];
  const files = existsSync(DEFAULT_FOLDER) ? readdirSync(DEFAULT_FOLDER).filter((f) => /^runtime-.+\.json$/.test(f)) : [];
  for (const name of files) {
    const file = join(DEFAULT_FOLDER, name);
    const info = readRuntimeFile(file);
    if (info && new URL(info.url).port === String(choice.port)) return file;
  }
  return null;
}

export type RuntimeFile = {
  url: string;
  pid: number;
  region: string;
  tableName: string;
  dynamoEndpoint: string;
  sqsEndpoint: string;
  sesEndpoint: string;
  /** The credential of the engines this runtime started (local/engine-door.ts): what makes the file owner-only. */
  credentials: LocalCredentials;
  externalDynamo: boolean;
  externalSqs: boolean;
  webhookQueueUrl: string;
  webhookDlqUrl: string;
  fanOutQueueUrl: string;
  fanOutDlqUrl: string;
  /** The runtime allows loopback webhook receivers (WEBHOOK_ALLOW_LOOPBACK=1). */
  webhookAllowLoopback?: boolean;
  /** The origin of the inbox the runtime reserved for `npm run listen` (local/listen-inbox.ts). */
  webhookListenInbox?: string;
  /** The demo application's client id, new in each new table: a listen started for it follows it across restarts. */
  demoClientId?: string;
  /**
   * The admin API's key, which the admin CLI sends as the local stand-in for IAM. The file is the user's alone
   * (0600), like an AWS credentials file; `npm start` also prints the key.
   */
  adminKey?: string;
};

/**
 * Written owner-only (0600), at every start, over an older file too. `.local/` is made 0700 at every start; a folder
 * CUSTOMER_API_RUNTIME_FILE names is the caller's, created 0700 when missing and otherwise left as it is.
 */
export function writeRuntimeFile(file: string, info: RuntimeFile): void {
  const folder = dirname(file);
  mkdirSync(folder, { recursive: true, mode: OWNER_FOLDER });
  if (folder === DEFAULT_FOLDER) chmodSync(folder, OWNER_FOLDER);
  writeFileSync(file, `${JSON.stringify(info, null, 2)}\n`, { mode: OWNER_FILE });
  chmodSync(file, OWNER_FILE);
}

/**
 * Where `npm start` also writes its banner (URLs, the demo credentials, the admin key), beside its runtime file and
 * owner-only like it: request logs scroll the banner off screen, the file keeps it while the runtime runs.
 */
export const bannerFileOf = (runtimeFile: string) => `${runtimeFile.replace(/\.json$/, '')}.banner.txt`;

export function writeBannerFile(runtimeFile: string, text: string): void {
  const file = bannerFileOf(runtimeFile);
  writeFileSync(file, text, { mode: OWNER_FILE });
  chmodSync(file, OWNER_FILE);
}

/** Removes the file, and its banner, only while it is still this process's: a runtime never removes another's record. */
export function removeRuntimeFile(file: string): void {
  try {
    if ((JSON.parse(readFileSync(file, 'utf8')) as RuntimeFile).pid !== process.pid) return;
  } catch {
    return;
  }
  rmSync(file, { force: true });
  rmSync(bannerFileOf(file), { force: true });
}

/** The running local runtime's endpoints, or null when none is running (no file, or its process is gone). */
export function readRuntimeFile(file: string): RuntimeFile | null {
  if (!existsSync(file)) return null;
  let info: RuntimeFile;
  try {
    info = JSON.parse(readFileSync(file, 'utf8')) as RuntimeFile;
  } catch (err) {
    throw new Error(`${file} is not a runtime file: ${(err as Error).message}`);
  }
  try {
    process.kill(info.pid, 0);
    return info;
  } catch {
    return null;
  }
}
