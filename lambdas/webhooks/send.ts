import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from '#domain/url-safety';
import { errorFromException, type AttemptOutcome } from './classify.js';

const USER_AGENT = 'Service-Customer-API-Webhooks/1.0';

export type SignedRequest = {
  url: URL;
  /** The validated address to connect to; the URL's hostname still names the TLS server and the Host header. */
  address: ResolvedAddress;
  eventType: string;
  eventId: string;
  timestamp: string;
  signature: string;
  body: string;
  /** Epoch ms by which the status line must have arrived (the attempt's timer started before DNS). */
  deadline: number;
  /** Trust only this CA (PEM) for the connection instead of the system's: the local runtime's listen inbox. */
  ca?: string;
};

/**
 * One POST. The socket goes only to the validated address (the lookup is
 * pinned, so no second resolution can swap it); TLS verifies the original
 * hostname (SNI and certificate). node:https never follows redirects, and
 * the response body is discarded unread.
 */
export function postWebhook(req: SignedRequest): Promise<AttemptOutcome> {
  const pinned = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: req.address.address, family: req.address.family }]);
    else callback(null, req.address.address, req.address.family);
  }) as unknown as LookupFunction;
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const outgoing = request(
      {
        protocol: 'https:',
        hostname: req.url.hostname.replace(/^\[|\]$/g, ''),
        port: req.url.port || 443,
        path: `${req.url.pathname}${req.url.search}`,
        method: 'POST',
        servername: isIp(req.url.hostname) ? undefined : req.url.hostname,
        lookup: pinned,
        agent: false,
        ...(req.ca ? { ca: req.ca } : {}),
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'User-Agent': USER_AGENT,
          'X-Service-Event': req.eventType,
          'X-Service-Event-Id': req.eventId,
          'X-Service-Timestamp': req.timestamp,
          'X-Service-Signature': req.signature,
          'Content-Length': Buffer.byteLength(req.body, 'utf8'),
        },
      },
      (res) => {
        res.resume();
        done({ status: res.statusCode ?? 0 });
        res.destroy();
      },
    );
    const timer = setTimeout(
      () => {
        done({ error: 'timeout' });
        outgoing.destroy();
      },
      Math.max(0, req.deadline - Date.now()),
    );
    outgoing.on('error', (err) => done({ error: errorFromException(err) }));
    outgoing.end(req.body);
  });
}

/** `work`'s result, or 'timeout' once `deadline` (epoch ms) passes first. */
export async function withinDeadline<T>(work: Promise<T>, deadline: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

function isIp(hostname: string): boolean {
  return hostname.startsWith('[') || /^[\d.]+$/.test(hostname);
}
