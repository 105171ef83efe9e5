import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { buildApp as buildFauxqs } from 'fauxqs';
import dynalite from 'dynalite';
import sesLocalModule from 'aws-ses-v2-local';
import { patchDynaliteIterators } from './dynalite-iterators.js';
import { patchFauxqsTimers } from './fauxqs-timers.js';
import { waitForEndpoint } from './start-checks.js';
import { OWNER_FOLDER } from './owner-only.js';
import { guardServer, newLocalCredentials, type LocalCredentials } from './engine-door.js';

// A CommonJS build with `exports.default`: Node's ESM loader wraps it once more than bundlers do.
const sesLocal = (sesLocalModule as unknown as { default?: typeof sesLocalModule }).default ?? sesLocalModule;

/** Where the local runtime's AWS-compatible engines answer. */
export type Engines = {
  dynamoEndpoint: string;
  sqsEndpoint: string;
  sesEndpoint: string;
  /** The credential the engines started here admit (engine-door.ts); an external engine takes the SDK's chain. */
  credentials: LocalCredentials;
  /** True when the caller supplied the endpoint (DynamoDB Local, LocalStack, AWS): use the default credentials chain. */
  externalDynamo: boolean;
  externalSqs: boolean;
  stop(): Promise<void>;
};

export type EngineOptions = {
  /** LevelDB folder for dynalite; null keeps everything in memory. */
  dataDir: string | null;
  dynamoEndpoint?: string | undefined;
  sqsEndpoint?: string | undefined;
  /** The credential the engines admit; default a new one (a benchmark gives its own to engines in another process). */
  credentials?: LocalCredentials;
};

/**
 * Starts dynalite, fauxqs and a local SES v2 in-process, unless external endpoints are given (then waits, a while,
 * for those to take connections). Every engine started here listens on 127.0.0.1 only, behind the door of
 * engine-door.ts: a loopback Host with its own port, no other origin, this start's credential.
 */
export async function startEngines(options: EngineOptions): Promise<Engines> {
  const stops: (() => Promise<void>)[] = [];
  const credentials = options.credentials ?? newLocalCredentials();
  const door = { accessKeyId: credentials.accessKeyId };
  try {
    if (options.dynamoEndpoint) await waitForEndpoint(options.dynamoEndpoint, 'DYNAMODB_ENDPOINT');
    if (options.sqsEndpoint) await waitForEndpoint(options.sqsEndpoint, 'SQS_ENDPOINT');
    let dynamoEndpoint = options.dynamoEndpoint;
    if (!dynamoEndpoint) {
      if (options.dataDir) mkdirSync(options.dataDir, { recursive: true, mode: OWNER_FOLDER });
      patchDynaliteIterators();
      const server = dynalite({
        ...(options.dataDir ? { path: options.dataDir } : {}),
        createTableMs: 0,
        deleteTableMs: 0,
        updateTableMs: 0,
      });
      dynamoEndpoint = `http://127.0.0.1:${await listen(server)}`;
      stops.push(() => close(server));
      guardServer(server, door);
    }
    let sqsEndpoint = options.sqsEndpoint;
    if (!sqsEndpoint) {
      await patchFauxqsTimers();
      // fauxqs's startFauxqs() listens on 0.0.0.0 whatever its `host` says (that only names the host in queue
      // URLs): the webhook queue and its DLQ would be open, without authentication, to the whole network. Its
      // exported buildApp() is the same server (startFauxqs builds it so, then listens): listen on loopback here.
      // stop() was app.close(); the queue URLs keep their form (`host` as before).
      const fauxqs = buildFauxqs({ logger: false, host: '127.0.0.1' });
      await fauxqs.listen({ port: 0, host: '127.0.0.1' });
      stops.push(() => fauxqs.close());
      guardServer(fauxqs.server, door);
      sqsEndpoint = `http://127.0.0.1:${(fauxqs.server.address() as AddressInfo).port}`;
    }
    const ses = await sesLocal({ host: '127.0.0.1', port: 0 });
    stops.push(() => close(ses));
    // Its mailbox pages (GET /, /store) are for the developer's browser, which signs nothing; sending mail is signed.
    guardServer(ses, { ...door, open: (req) => req.method === 'GET' });
    return {
      dynamoEndpoint,
      sqsEndpoint,
      sesEndpoint: `http://127.0.0.1:${(ses.address() as AddressInfo).port}`,
      credentials,
      externalDynamo: Boolean(options.dynamoEndpoint),
      externalSqs: Boolean(options.sqsEndpoint),
      stop: () => stopAll(stops),
    };
  } catch (err) {
    await stopAll(stops);
    throw err;
  }
}

async function stopAll(stops: (() => Promise<void>)[]) {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

export function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}
