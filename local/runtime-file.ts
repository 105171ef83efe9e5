import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * While `npm start` runs it records its endpoints here, so the admin CLI can
 * reach the same engines without flags. CUSTOMER_API_RUNTIME_FILE moves it.
 */
export const RUNTIME_FILE_ENV = 'CUSTOMER_API_RUNTIME_FILE';
export const RUNTIME_FILE = process.env[RUNTIME_FILE_ENV] ?? join(process.cwd(), '.local', 'runtime.json');

export type RuntimeFile = {
  url: string;
  pid: number;
  region: string;
  tableName: string;
  dynamoEndpoint: string;
  sqsEndpoint: string;
  sesEndpoint: string;
  externalDynamo: boolean;
  externalSqs: boolean;
  webhookQueueUrl: string;
  webhookDlqUrl: string;
  /** The runtime allows loopback webhook receivers (WEBHOOK_ALLOW_LOOPBACK=1). */
  webhookAllowLoopback?: boolean;
  /** The origin of the inbox the runtime reserved for `npm run listen` (local/listen-inbox.ts). */
  webhookListenInbox?: string;
  /**
   * The admin API's key, which the admin CLI sends as the local stand-in for IAM. The file is the user's alone
   * (0600), like an AWS credentials file; `npm start` also prints the key.
   */
  adminKey?: string;
};

export function writeRuntimeFile(info: RuntimeFile): void {
  mkdirSync(dirname(RUNTIME_FILE), { recursive: true });
  writeFileSync(RUNTIME_FILE, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  // A file an earlier run left keeps its mode through the write.
  chmodSync(RUNTIME_FILE, 0o600);
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
