import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { sha256Hex } from '#domain/crypto';
import { strongEtag } from '#domain/etag';
import { SPORTS_LOGO_NAME } from '#contract/schemas/requests';

/** One stored image, ready to serve. */
type Asset = { body: Buffer; contentType: string; etag: string };

/** Where logo files come from (the port; the folder adapter below serves the package's or the repository's folder). */
export type AssetStore = { get(name: string): Promise<Asset | null> };

const CONTENT_TYPES: Record<string, string> = { '.svg': 'image/svg+xml', '.png': 'image/png' };

/**
 * The content type of a servable logo name, or null. Every store checks the
 * strict pattern again, so no caller can make it read outside its folder or
 * prefix; the type comes from this table, never from what storage says.
 */
function logoContentType(name: string): string | null {
  const contentType = CONTENT_TYPES[extname(name)];
  return SPORTS_LOGO_NAME.test(name) && contentType ? contentType : null;
}

/** The same bytes get the same strong ETag from every store and every process. */
function assetOf(body: Buffer, contentType: string): Asset {
  return { body, contentType, etag: strongEtag(sha256Hex(body.toString('base64')).slice(0, 32)) };
}

/**
 * Serves the files of one folder. Its files change only with a deploy, so the folder is listed once and each file
 * read once per process; a name not listed is answered without touching the disk or the cache, so made-up names
 * cannot grow it.
 */
export function folderAssetStore(dir: string): AssetStore {
  let names: Promise<Set<string>> | undefined;
  const cache = new Map<string, Promise<Asset>>();
  return {
    async get(name) {
      const contentType = logoContentType(name);
      if (!contentType) return null;
      names ??= readdir(dir).then((files) => new Set(files));
      if (!(await names).has(name)) return null;
      if (!cache.has(name)) cache.set(name, readFile(join(dir, name)).then((body) => assetOf(body, contentType)));
      return cache.get(name)!;
    },
  };
}
