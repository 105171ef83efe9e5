import type { Operations } from '#platform/api-handler';
import { ApiError } from '#contract/errors';
import { ifNoneMatchHits } from '#domain/etag';
import { header } from '#platform/http';
import type { AssetStore } from './asset-store.js';

/** Logos never change under a name (a new image gets a new name), so caches may keep them for a day without asking. */
const CACHE_CONTROL = 'public, max-age=86400, immutable';

export function assetOperations(assets: AssetStore): Operations {
  return {
    async sportsLogo(req) {
      const asset = await assets.get(req.params.name!);
      if (!asset) throw new ApiError('not_found', 'No logo has this name.');
      const headers = {
        'Content-Type': asset.contentType,
        'Cache-Control': CACHE_CONTROL,
        ETag: asset.etag,
        'X-Content-Type-Options': 'nosniff',
        // An SVG opened directly must not run script on the API's origin.
        'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      };
      if (ifNoneMatchHits(header(req.event, 'if-none-match'), asset.etag)) return { statusCode: 304, headers, body: '' };
      // SVG is UTF-8 text; PNG travels base64-encoded through API Gateway (a binary media type).
      return asset.contentType === 'image/svg+xml'
        ? { statusCode: 200, headers, body: asset.body.toString('utf8') }
        : { statusCode: 200, headers, body: asset.body.toString('base64'), isBase64Encoded: true };
    },
  };
}
