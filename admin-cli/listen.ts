import { randomBytes } from 'node:crypto';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { parseArgs } from 'node:util';
import { chosenRuntimeFile, readRuntimeFile, type RuntimeFile } from '#local/runtime-file';
import { LISTEN_INBOX_TLS } from '#local/listen-inbox';
import { WEBHOOK_HEADERS } from '#lambdas/webhooks/events';
import { verifyWebhook } from '../clients/typescript/src/index.js';
import { runCli, type Io } from './run.js';
import { portArgument } from './parse.js';

/**
 * `npm run listen`: webhooks of the local runtime on a laptop, as `stripe listen` does. A loopback HTTPS inbox
 * gets a destination of its own (registered and removed with the admin CLI's own commands), verifies each
 * delivery with the kit, forwards it unchanged to the developer's plain-HTTP endpoint and answers the service
 * with that endpoint's status, so retries and dead letters behave as in production.
 *
 * Only the local runtime is ever targeted (there is no --stage). The inbox listens on the one loopback origin the
 * runtime reserved at start and accepts (local/listen-inbox.ts); a plain `npm start` is all it needs.
 *
 * It trusts only its own destination: a request to any other path (another destination registered at the inbox's
 * origin, by any application) is answered 404, one that fails verification 401, and neither is forwarded; both
 * count as failed attempts in the service, and each is one line here.
 *
 * It outlives a restart of `npm start`: it reads the runtime file every second, and when another process (or URL)
 * has written it, it keeps its destination if the runtime still has it (a data folder keeps it) and otherwise
 * registers a new one (a runtime in memory, a wiped data folder), saying so in one line with the new secret.
 */

const TLS = { key: LISTEN_INBOX_TLS.key, cert: LISTEN_INBOX_TLS.cert };
/** The name of every destination a listen registers (with its pid), by which a later one knows its leftovers. */
const LISTEN_NAME = 'npm run listen';
/** The endpoint could not be reached or did not answer: the service sees a retryable failure. */
const UNREACHABLE_STATUS = 502;
/** A request for another path than this listen's destination: nothing is here for it. */
const NOT_THIS_DESTINATION_STATUS = 404;
/** A delivery to this listen's path whose signature does not verify with its secret. */
const UNVERIFIED_STATUS = 401;
/** How often the runtime file is read for a restart: a small file and a signal 0, nothing more. */
const WATCH_EVERY_MS = 1_000;
/** Set by each hop itself; everything else (Content-Type, User-Agent, X-Service-*) goes on unchanged. */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'expect', 'upgrade']);

const LISTEN_USAGE = `usage: npm run listen -- --app CLIENT_ID --forward-to http://localhost:4000/hook [--locations L1,L2] [--port P | --runtime-file F]`;

export class ListenUsageError extends Error {}

export type Listener = { destinationId: string; inboxUrl: string; close(): Promise<void> };

type Output = Pick<Io, 'out' | 'err'>;

export async function listen(argv: string[], io: Output, env: NodeJS.ProcessEnv): Promise<Listener> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        app: { type: 'string' },
        'forward-to': { type: 'string' },
        locations: { type: 'string' },
        'runtime-file': { type: 'string' },
        port: { type: 'string' },
      },
    }));
  } catch (err) {
    throw new ListenUsageError(`${(err as Error).message}\n${LISTEN_USAGE}`);
  }
  if (!values.app || !values['forward-to']) throw new ListenUsageError(LISTEN_USAGE);
  const forwardTo = new URL(values['forward-to']);
  if (forwardTo.protocol !== 'http:' && forwardTo.protocol !== 'https:') throw new ListenUsageError('--forward-to must be an http(s) URL');
  let port: number | undefined;
  try {
    port = portArgument(values.port);
  } catch (err) {
    throw new ListenUsageError(`${(err as Error).message}\n${LISTEN_USAGE}`);
  }
  const runtimeFile = chosenRuntimeFile({ file: values['runtime-file'], port }, env);
  const runtime = runtimeFile ? readRuntimeFile(runtimeFile) : null;
  if (!runtime || !runtimeFile)
    throw new ListenUsageError('the local runtime is not running: start it with `npm start`, then run this again');
  let inbox = inboxOf(runtime);
  const app = values.app;
  const locations = values.locations;

  const cli = (args: string[]) => adminJson([...args, '--runtime-file', runtimeFile, '--json'], env);
  // Its own path, new for every listen: a destination another listen (or application) left at the inbox never matches it.
  const own = { path: `/listen/${randomBytes(12).toString('hex')}`, secret: '' };
  const server = createServer(TLS, (req, res) => {
    void relay(req, own, forwardTo).then(({ status, line }) => {
      io.out(`${line}\n`);
      res.writeHead(status).end();
    });
  });
  server.on('tlsClientError', (err) => io.err(`a TLS handshake with the inbox failed: ${err.message}\n`));
  await bind(server, inbox);
  const inboxUrl = () => `${inbox.origin}${own.path}`;
  /** The demo application is new in a new runtime: a listen started for it follows it. */
  const appIn = (info: RuntimeFile) => (app === runtime.demoClientId && info.demoClientId ? info.demoClientId : app);
  const register = async (clientId: string) => {
    const added = (await cli([
      'destinations',
      'add',
      '--app',
      clientId,
      '--name',
      `${LISTEN_NAME} (pid ${process.pid})`,
      '--url',
      inboxUrl(),
      ...(locations ? ['--locations', locations] : []),
    ])) as { destination: { destinationId: string }; signingSecret: string };
    own.secret = added.signingSecret;
    return added.destination.destinationId;
  };

  let destinationId: string;
  try {
    await removeLeftovers(cli, inbox.origin, io);
    destinationId = await register(app);
  } catch (err) {
    await closeServer(server);
    throw err;
  }
  io.out(
    [
      `Destination ${destinationId} of ${app} delivers to ${inboxUrl()}; forwarding to ${forwardTo.href}.`,
      `Signing secret (valid until this stops): ${own.secret}`,
      `  verify ${WEBHOOK_HEADERS.signature} with it in your endpoint; each delivery is also verified here.`,
      'Ready. Ctrl-C removes the destination; a restart of `npm start` keeps it or registers a new one.',
      '',
    ].join('\n'),
  );

  /** A restarted runtime: the same destination if it still has it at this inbox, else a new one, in one line. */
  const rejoin = async (info: RuntimeFile) => {
    const next = inboxOf(info);
    // A runtime in memory reserves another port at each start.
    if (next.origin !== inbox.origin || !server.listening) {
      if (server.listening) await closeServer(server);
      await bind(server, next);
      inbox = next;
    }
    const { destinations } = (await cli(['destinations', 'list'])) as { destinations: { destinationId: string; url: string }[] };
    const kept = destinations.find((d) => d.destinationId === destinationId);
    if (kept?.url === inboxUrl()) {
      io.out(`The local runtime restarted (pid ${info.pid}); destination ${destinationId} is still there, with the same secret.\n`);
      return;
    }
    if (kept) await cli(['destinations', 'remove', destinationId]);
    const clientId = appIn(info);
    const previous = destinationId;
    destinationId = await register(clientId);
    io.out(
      `The local runtime restarted without destination ${previous}: registered ${destinationId} of ${clientId} at ${inboxUrl()}; signing secret (new): ${own.secret}\n`,
    );
  };
  const watch = watchRuntime(runtimeFile, runtime, rejoin, io);

  return {
    get destinationId() {
      return destinationId;
    },
    get inboxUrl() {
      return inboxUrl();
    },
    async close() {
      watch.stop();
      await closeServer(server);
      await cli(['destinations', 'remove', destinationId]);
      io.out(`Removed destination ${destinationId}.\n`);
    },
  };
}

/** The inbox the runtime reserved; a runtime started before the inbox existed records none. */
function inboxOf(runtime: RuntimeFile): URL {
  if (!runtime.webhookListenInbox) throw new ListenUsageError('the local runtime has no listen inbox: restart `npm start`');
  return new URL(runtime.webhookListenInbox);
}

function bind(server: Server, inbox: URL): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new ListenUsageError(
              `the inbox address ${inbox.host} is in use: by another \`npm run listen\` of this runtime, or, if none runs, by another program (restart \`npm start\` to reserve another port)`,
            )
          : err,
      ),
    );
    server.listen(Number(inbox.port), inbox.hostname, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
}

/**
 * Reads the runtime file every WATCH_EVERY_MS (one read at a time): a stop is said once, and a runtime another
 * process wrote (a restart) is handed to `rejoin`, again on the next read until it succeeds.
 */
function watchRuntime(file: string, first: RuntimeFile, rejoin: (info: RuntimeFile) => Promise<void>, io: Output): { stop(): void } {
  let current = { pid: first.pid, url: first.url };
  let stopped = false;
  let said = '';
  const say = (line: string) => {
    if (line !== said) io.out(`${line}\n`);
    said = line;
  };
  let timer: NodeJS.Timeout;
  const tick = async () => {
    let info: RuntimeFile | null = null;
    try {
      info = readRuntimeFile(file);
    } catch (err) {
      say((err as Error).message);
    }
    if (!info) {
      if (current.pid) say('The local runtime stopped; waiting for `npm start` to come back.');
      current = { pid: 0, url: '' };
    } else if (info.pid !== current.pid || info.url !== current.url) {
      try {
        await rejoin(info);
        current = { pid: info.pid, url: info.url };
        said = '';
      } catch (err) {
        say(`The local runtime restarted, but this listen could not rejoin it yet: ${(err as Error).message}`);
      }
    }
    if (!stopped) timer = setTimeout(() => void tick(), WATCH_EVERY_MS);
  };
  timer = setTimeout(() => void tick(), WATCH_EVERY_MS);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * A listen stopped outright (kill -9, a closed terminal) leaves its destination at the inbox. This one holds the
 * inbox's address now, so no other listen of this runtime is running: its destinations there are leftovers, whose
 * deliveries would arrive here signed with secrets this one does not know.
 */
async function removeLeftovers(cli: (args: string[]) => Promise<unknown>, origin: string, io: Output): Promise<void> {
  const { destinations } = (await cli(['destinations', 'list'])) as {
    destinations: { destinationId: string; name: string; url: string }[];
  };
  for (const d of destinations) {
    if (new URL(d.url).origin !== origin || !d.name.startsWith(`${LISTEN_NAME} (pid `)) continue;
    await cli(['destinations', 'remove', d.destinationId]);
    io.out(`Removed destination ${d.destinationId}, left at this inbox by an earlier listen (${d.name}).\n`);
  }
}

/**
 * One request: for this listen's path and verified with the kit, forwarded byte for byte and answered with the
 * endpoint's status; otherwise answered 404 (another path) or 401 (unverified) without forwarding.
 */
async function relay(
  req: IncomingMessage,
  own: { path: string; secret: string },
  forwardTo: URL,
): Promise<{ status: number; line: string }> {
  const body = await readBody(req);
  const line = (location: string, outcome: string, status: number, note = '') =>
    [
      new Date().toISOString(),
      req.headers[WEBHOOK_HEADERS.eventId.toLowerCase()] ?? '-',
      req.headers[WEBHOOK_HEADERS.event.toLowerCase()] ?? '-',
      location,
      outcome,
      `-> ${status}${note}`,
    ].join('  ');
  if (req.method !== 'POST' || req.url !== own.path) {
    const status = NOT_THIS_DESTINATION_STATUS;
    return { status, line: line('-', `not this listen's destination (${req.method} ${req.url})`, status, ' (not forwarded)') };
  }
  const verified = await verifyWebhook(own.secret, req.headers, body);
  if (!verified.ok)
    return { status: UNVERIFIED_STATUS, line: line('-', `verified no (${verified.reason})`, UNVERIFIED_STATUS, ' (not forwarded)') };
  const status = await forward(forwardTo, forwardable(req.headers), body);
  const location = `${verified.event.groupId}/${verified.event.locationId}`;
  return { status, line: line(location, 'verified yes', status, status === UNREACHABLE_STATUS ? ' (endpoint unreachable)' : '') };
}

/**
 * The POST to the endpoint with node:http(s), which sends the headers given and no others (fetch adds its own, such
 * as Sec-Fetch-Mode) and never follows a redirect: a 3xx goes back to the service, which counts it a failure.
 */
function forward(to: URL, headers: Record<string, string>, body: Buffer): Promise<number> {
  const send = to.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const outgoing = send(to, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (answer) => {
      answer.resume();
      answer.on('end', () => resolve(answer.statusCode ?? UNREACHABLE_STATUS));
      answer.on('error', () => resolve(UNREACHABLE_STATUS));
    });
    outgoing.on('error', () => resolve(UNREACHABLE_STATUS));
    outgoing.end(body);
  });
}

function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      HOP_HEADERS.has(name) || value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]],
    ),
  );
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** One admin CLI command, in process, its --json output parsed; a refusal (exit code not 0) throws its message. */
async function adminJson(args: string[], env: NodeJS.ProcessEnv): Promise<unknown> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => void (out += t), err: (t) => void (err += t), env });
  if (code !== 0) throw new ListenUsageError(`admin ${args.slice(0, 2).join(' ')}: ${err.trim()}`);
  return JSON.parse(out) as unknown;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
