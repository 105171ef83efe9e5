import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * The door every engine the local runtime starts (dynalite, fauxqs, the SES stand-in, the proxy before DynamoDB
 * Local) puts in front of its handler, checked in-process before the engine sees the request:
 * - the Host names a loopback address with the engine's own port, so a page whose name an attacker rebinds to
 *   127.0.0.1 (DNS rebinding) is refused;
 * - a request that carries an Origin other than the engine's own is refused: no other page gets an answer, whatever
 *   CORS headers the engine would have added (dynalite allows `*`);
 * - a request signed for AWS names the runtime's access key id, random per start (see `LocalCredentials`).
 * Refusals use the AWS JSON error shape, 403 AccessDeniedException, which the SDKs do not retry.
 */

/**
 * The engines' credential, new at every start. The engines cannot check a SigV4 signature before they read the body
 * (its hash is signed), so the access key id is what they check: 128 random bits, never printed, kept only in the
 * owner-only runtime file. Letters and digits only: DynamoDB Local refuses any other key id.
 */
export type LocalCredentials = { accessKeyId: string; secretAccessKey: string };

export function newLocalCredentials(): LocalCredentials {
  return { accessKeyId: `LOCAL${randomBytes(16).toString('hex')}`, secretAccessKey: randomBytes(32).toString('hex') };
}

export type DoorOptions = {
  /** The key id every signed request must name; null checks no credential. */
  accessKeyId: string | null;
  /** Requests let in without the credential (the SES stand-in's mailbox pages, which a browser opens). */
  open?: (req: IncomingMessage) => boolean;
};

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** The Host values a loopback client of this port sends. */
function loopbackHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/** Why the request may not reach the engine, or null. */
function doorRefusal(req: IncomingMessage, hosts: Set<string>, options: DoorOptions, keyDigest: Buffer | null): string | null {
  if (!hosts.has((req.headers.host ?? '').toLowerCase())) return 'Host must be this engine on a loopback address';
  const origin = req.headers.origin;
  if (origin !== undefined && !hosts.has(origin.toLowerCase().replace(/^http:\/\//, ''))) return 'Cross-origin requests are refused';
  if (!keyDigest || options.open?.(req)) return null;
  const keyId = /Credential=([^/,\s]+)\//.exec(req.headers.authorization ?? '')?.[1] ?? '';
  return timingSafeEqual(sha256(keyId), keyDigest) ? null : "The request is not signed with the local runtime's credential";
}

/** Puts the door in front of a listening server's request handlers (its port is read once, now). */
export function guardServer(server: Server, options: DoorOptions): void {
  const handlers = server.listeners('request') as Handler[];
  server.removeAllListeners('request');
  server.on(
    'request',
    doorHandler(portOf(server), options, (req, res) => handlers.forEach((h) => h.call(server, req, res))),
  );
}

/** A request handler that lets through, to `next`, only what the door admits. */
export function doorHandler(port: number, options: DoorOptions, next: Handler): Handler {
  const hosts = loopbackHosts(port);
  const keyDigest = options.accessKeyId === null ? null : sha256(options.accessKeyId);
  return (req, res) => {
    const refusal = doorRefusal(req, hosts, options, keyDigest);
    if (refusal === null) return next(req, res);
    req.resume();
    const body = JSON.stringify({ __type: 'AccessDeniedException', message: refusal });
    res.writeHead(403, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': 'AccessDeniedException' }).end(body);
  };
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('guardServer needs a listening TCP server');
  return address.port;
}
