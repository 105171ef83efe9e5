import { GetObjectCommand, NoSuchKey, type S3Client } from '@aws-sdk/client-s3';
import { assetOf, logoContentType, type Asset, type AssetStore } from './asset-store.js';

export type S3AssetStoreOptions = {
  client: S3Client;
  bucket: string;
  /** Key prefix ending in '/', e.g. SPORTS_LOGO_PREFIX. */
  prefix: string;
};

/**
 * Serves objects under one prefix of a bucket. A found object is kept for the
 * life of the process (deployed files never change under a name). A miss is
 * not kept: a logo uploaded later shows up on the next request, and names
 * that never existed cannot grow the cache.
 *
 * A missing key must come back as NoSuchKey, so the reader needs
 * s3:ListBucket on the prefix (the stack grants it); AccessDenied stays an
 * error, so a broken grant is a loud 500 rather than a quiet 404.
 */
export function s3AssetStore({ client, bucket, prefix }: S3AssetStoreOptions): AssetStore {
  const cache = new Map<string, Asset>();
  return {
    async get(name) {
      const contentType = logoContentType(name);
      if (!contentType) return null;
      const cached = cache.get(name);
      if (cached) return cached;
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: `${prefix}${name}` }));
        const bytes = await object.Body?.transformToByteArray();
        if (!bytes) throw new Error(`GetObject ${prefix}${name} answered without a body`);
        const asset = assetOf(Buffer.from(bytes), contentType);
        cache.set(name, asset);
        return asset;
      } catch (err) {
        if (err instanceof NoSuchKey) return null;
        throw err;
      }
    },
  };
}
