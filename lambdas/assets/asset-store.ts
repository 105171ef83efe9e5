import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256Hex } from '../shared/crypto.js';
import { strongEtag } from '../shared/etag.js';
import { SPORTS_LOGO_NAME } from '../shared/schemas/sportsq.js';

/** One stored image, ready to serve. */
export type Asset = { body: Buffer; contentType: string; etag: string };

/** Where logo files come from (the port; the folder adapter below, an S3 adapter could stand beside it). */
export type AssetStore = { get(name: string): Promise<Asset | null> };

export const CONTENT_TYPES: Record<string, string> = { '.svg': 'image/svg+xml', '.png': 'image/png' };

/**
 * Serves files of one folder. Names are checked against the strict logo
 * pattern again here, so no caller can make it read outside the folder.
 * Files are immutable once deployed, so each is read once per process.
 */
export function folderAssetStore(dir: string): AssetStore {
  const cache = new Map<string, Asset | null>();
  return {
    async get(name) {
      const contentType = CONTENT_TYPES[extname(name)];
      if (!SPORTS_LOGO_NAME.test(name) || !contentType) return null;
      if (!cache.has(name)) {
        try {
          const body = await readFile(join(dir, name));
          cache.set(name, { body, contentType, etag: strongEtag(sha256Hex(body.toString('base64')).slice(0, 32)) });
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
          cache.set(name, null);
        }
      }
      return cache.get(name)!;
    },
  };
}

/**
 * The bundled folder: next to the Lambda bundle (the stack copies
 * assets/sports-logo there), or the repository's own folder when run from source.
 */
export function defaultSportsLogoDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.LAMBDA_TASK_ROOT
    ? join(env.LAMBDA_TASK_ROOT, 'assets', 'sports-logo')
    : fileURLToPath(new URL('../../assets/sports-logo/', import.meta.url));
}
