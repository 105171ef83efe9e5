import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { LocalCredentials } from './engine-door.js';
import { OWNER_FILE, OWNER_FOLDER } from './owner-only.js';

/**
 * While `npm start` runs it records its endpoints here, so the admin CLI can
 * reach the same engines without flags. CUSTOMER_API_RUNTIME_FILE moves it.
 */
export const RUNTIME_FILE_ENV = 'CUSTOMER_API_RUNTIME_FILE';
const DEFAULT_FOLDER = join(process.cwd(), '.local');
export const RUNTIME_FILE = process.env[RUNTIME_FILE_ENV] ?? join(DEFAULT_FOLDER, 'runtime.json');

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
  /** The runtime allows loopback webhook receivers (WEBHOOK_ALLOW_LOOPBACK=1); the CLI validates URLs the same way. */
  webhookAllowLoopback?: boolean;
  /** The origin of the inbox the runtime reserved for `npm run listen` (local/listen-inbox.ts). */
  webhookListenInbox?: string;
};

/**
 * Written owner-only (0600), at every start, over an older file too. `.local/` is made 0700 at every start; a folder
 * CUSTOMER_API_RUNTIME_FILE names is the caller's, created 0700 when missing and otherwise left as it is.
 */
export function writeRuntimeFile(info: RuntimeFile): void {
  const folder = dirname(RUNTIME_FILE);
  mkdirSync(folder, { recursive: true, mode: OWNER_FOLDER });
  if (folder === DEFAULT_FOLDER) chmodSync(folder, OWNER_FOLDER);
  writeFileSync(RUNTIME_FILE, `${JSON.stringify(info, null, 2)}\n`, { mode: OWNER_FILE });
  chmodSync(RUNTIME_FILE, OWNER_FILE);
}

export function removeRuntimeFile(): void {
  rmSync(RUNTIME_FILE, { force: true });
}

/** The running local runtime's endpoints, or null when none is running (no file, or its process is gone). */
export function readRuntimeFile(file = RUNTIME_FILE): RuntimeFile | null {
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
