import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { readRuntimeFile, RUNTIME_FILE, RUNTIME_FILE_ENV } from '#local/runtime-file';
import { systemClock } from '#platform/deps';
import { verifyWebhook } from '../clients/typescript/src/index.js';
import { runCli, type Io } from './run.js';

/**
 * `npm run listen`: webhooks of the local runtime on a laptop, as `stripe listen` does. A loopback HTTPS inbox
 * gets a destination of its own (registered and removed with the admin CLI's own commands), verifies each
 * delivery with the kit, forwards it unchanged to the developer's plain-HTTP endpoint and answers the service
 * with that endpoint's status, so retries and dead letters behave as in production.
 *
 * Only the local runtime is ever targeted (there is no --stage): a deployed stage refuses loopback URLs anyway.
 * The inbox's certificate is the test one (test/fixtures/tls: 127.0.0.1, its CA's key discarded), which the
 * runtime trusts when started with `npm run start:listen`.
 */

const TLS = {
  key: readFileSync(new URL('../test/fixtures/tls/server-key.pem', import.meta.url)),
  cert: readFileSync(new URL('../test/fixtures/tls/server.pem', import.meta.url)),
};
const START_HINT = 'start the runtime with `npm run start:listen` (loopback destinations allowed, the inbox certificate trusted)';
/** The endpoint could not be reached or did not answer: the service sees a retryable failure. */
const UNREACHABLE_STATUS = 502;
/** Set by each hop itself; everything else (Content-Type, User-Agent, X-Service-*) goes on unchanged. */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'expect', 'upgrade']);

const LISTEN_USAGE = `usage: npm run listen -- --app CLIENT_ID --forward-to http://localhost:4000/hook [--locations L1,L2] [--runtime-file F]`;

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
      },
    }));
  } catch (err) {
    throw new ListenUsageError(`${(err as Error).message}\n${LISTEN_USAGE}`);
  }
  if (!values.app || !values['forward-to']) throw new ListenUsageError(LISTEN_USAGE);
  const forwardTo = new URL(values['forward-to']);
  if (forwardTo.protocol !== 'http:' && forwardTo.protocol !== 'https:') throw new ListenUsageError('--forward-to must be an http(s) URL');
  const runtimeFile = values['runtime-file'] ?? env[RUNTIME_FILE_ENV] ?? RUNTIME_FILE;
  const runtime = readRuntimeFile(runtimeFile);
  if (!runtime) throw new ListenUsageError(`the local runtime is not running: ${START_HINT}`);
  if (!runtime.webhookAllowLoopback) throw new ListenUsageError(`the local runtime refuses loopback destinations: ${START_HINT}`);

  const cli = (args: string[]) => adminJson([...args, '--runtime-file', runtimeFile, '--json'], env);
  let secret = '';
  const server = createServer(TLS, (req, res) => {
    void relay(req, secret, forwardTo).then(({ status, line }) => {
      io.out(`${line}\n`);
      res.writeHead(status).end();
    });
  });
  // The runtime's deliverer hangs up on a certificate it does not trust: say what to do rather than stay silent.
  server.once('tlsClientError', (err) => io.err(`a TLS handshake failed (${err.message}): ${START_HINT}\n`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const inboxUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}/listen`;

  let added: { destination: { destinationId: string }; signingSecret: string };
  try {
    added = (await cli([
      'destinations',
      'add',
      '--app',
      values.app,
      '--name',
      `npm run listen (pid ${process.pid})`,
      '--url',
      inboxUrl,
      ...(values.locations ? ['--locations', values.locations] : []),
    ])) as typeof added;
  } catch (err) {
    await closeServer(server);
    throw err;
  }
  secret = added.signingSecret;
  const destinationId = added.destination.destinationId;
  io.out(
    [
      `Destination ${destinationId} of ${values.app} delivers to ${inboxUrl}; forwarding to ${forwardTo.href}.`,
      `Signing secret (valid until this stops): ${secret}`,
      '  verify X-Service-Signature with it in your endpoint; each delivery is also verified here.',
      'Ready. Ctrl-C removes the destination.',
      '',
    ].join('\n'),
  );
  return {
    destinationId,
    inboxUrl,
    async close() {
      await closeServer(server);
      await cli(['destinations', 'remove', destinationId]);
      io.out(`Removed destination ${destinationId}.\n`);
    },
  };
}

/** One delivery: verified with the kit, forwarded byte for byte, answered with the endpoint's status. */
async function relay(req: IncomingMessage, secret: string, forwardTo: URL): Promise<{ status: number; line: string }> {
  const body = await readBody(req);
  const verified = await verifyWebhook(secret, req.headers, body);
  let status: number;
  try {
    // redirect: 'manual' hands a 3xx back to the service, which treats it as a failure (it never follows one).
    const answer = await fetch(forwardTo, { method: 'POST', headers: forwardable(req.headers), body, redirect: 'manual' });
    await answer.arrayBuffer();
    status = answer.status;
  } catch {
    status = UNREACHABLE_STATUS;
  }
  const location = verified.ok ? `${verified.event.groupId}/${verified.event.locationId}` : '-';
  const line = [
    new Date().toISOString(),
    req.headers['x-service-event-id'] ?? '-',
    req.headers['x-service-event'] ?? '-',
    location,
    `verified ${verified.ok ? 'yes' : `no (${verified.reason})`}`,
    `-> ${status}${status === UNREACHABLE_STATUS ? ' (endpoint unreachable)' : ''}`,
  ].join('  ');
  return { status, line };
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
  const code = await runCli(args, { out: (t) => void (out += t), err: (t) => void (err += t), env, clock: systemClock });
  if (code !== 0) throw new ListenUsageError(`admin ${args.slice(0, 2).join(' ')}: ${err.trim()}`);
  return JSON.parse(out) as unknown;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
