import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { sha256Hex } from '#domain/crypto';
import { strongEtag } from '#domain/etag';
import { SPORTS_LOGO_NAME } from '#contract/schemas/requests';

/** One stored image, ready to serve. */
export type Asset = { body: Buffer; contentType: string; etag: string };

/** Where logo files come from (the port; a folder adapter here, an S3 one in s3-asset-store.ts). */
export type AssetStore = { get(name: string): Promise<Asset | null> };

export const CONTENT_TYPES: Record<string, string> = { '.svg': 'image/svg+xml', '.png': 'image/png' };

/**
 * The content type of a servable logo name, or null. Every store checks the
 * strict pattern again, so no caller can make it read outside its folder or
 * prefix; the type comes from this table, never from what storage says.
 */
export function logoContentType(name: string): string | null {
  const contentType = CONTENT_TYPES[extname(name)];
  return SPORTS_LOGO_NAME.test(name) && contentType ? contentType : null;
}

/** The same bytes get the same strong ETag from every store and every process. */
export function assetOf(body: Buffer, contentType: string): Asset {
  return { body, contentType, etag: strongEtag(sha256Hex(body.toString('base64')).slice(0, 32)) };
}

/** Serves files of one folder. Files are immutable once deployed, so each is read once per process. */
export function folderAssetStore(dir: string): AssetStore {
  const cache = new Map<string, Asset | null>();
  return {
    async get(name) {
      const contentType = logoContentType(name);
      if (!contentType) return null;
      if (!cache.has(name)) {
        try {
          cache.set(name, assetOf(await readFile(join(dir, name)), contentType));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
          cache.set(name, null);
        }
      }
      return cache.get(name)!;
    },
  };
}
