import { readdirSync } from 'node:fs';
import type { Context } from './context.js';
import { pathOf, route } from './http.js';
import { Check } from './report.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** The folder the stack ships in the assets function's package; the fallback when no response names a PNG. */
const LOGO_FOLDER = new URL('../assets/sports-logo/', import.meta.url);

/**
 * API Gateway decodes a binary body only when the request's first Accept type matches binaryMediaTypes, so a
 * logo must come back as bytes to what curl, fetch and browsers actually send.
 */
const ACCEPTS: [string, string][] = [
  ['*/*', '*/*'],
  ['image/*', 'image/*'],
  ["a browser's list", 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'],
];

/** A PNG the service itself points at (contract 2.8 rule 4: image URLs are under /v1/assets/sports-logo/). */
export function logoName(bodies: string[]): string {
  const prefix = route('sportsLogo').path.replace('{name}', '');
  const named = new RegExp(`${prefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}([A-Za-z0-9._-]+\\.png)\\b`);
  for (const body of bodies) {
    const match = named.exec(body)?.[1];
    if (match) return match;
  }
  const shipped = readdirSync(LOGO_FOLDER)
    .filter((f) => f.endsWith('.png'))
    .sort()[0];
  if (!shipped) throw new Error('no .png in assets/sports-logo/');
  return shipped;
}

/** The logo's bytes, unauthenticated, for each Accept list: 200, image/png and the PNG signature (not base64 text). */
export async function logoChecks({ http, report }: Context, name: string): Promise<void> {
  const path = pathOf('sportsLogo', { name });
  for (const [label, accept] of ACCEPTS) {
    const reply = await http(path, { headers: { Accept: accept } });
    const head = reply.bytes.subarray(0, 8);
    report.add(
      new Check(`logo ${name}: Accept ${label}`)
        .equal('status', 200, reply.status)
        .equal('Content-Type', 'image/png', reply.headers.get('content-type') ?? undefined)
        .holds('first bytes', 'the PNG signature', head.equals(PNG_SIGNATURE), describeBytes(head)),
    );
  }
}

function describeBytes(head: Buffer): string {
  const text = head.toString('latin1');
  // Base64 of a PNG starts "iVBORw0K": say so, since that is the failure API Gateway produces.
  return /^[\x20-\x7e]*$/.test(text) ? `text "${text}"` : head.toString('hex');
}
