import { apiHandler, type Operations, v1Repositories } from '#platform/api-handler';
import { ApiError } from '#contract/errors';
import { ifNoneMatchHits } from '#domain/etag';
import { header } from '#platform/http';
import { type AssetStore, folderAssetStore } from './asset-store.js';
import { ASSETS_ROUTES } from './routes.js';
import { defaultDeps, type Deps } from '#platform/deps';

/** Logos never change under a name (a new image gets a new name), so caches may keep them for a day without asking. */
const CACHE_CONTROL = 'public, max-age=86400, immutable';

export function assetOperations(assets: AssetStore): Operations<typeof ASSETS_ROUTES> {
  return {
    sportsLogo: {
      async run(req) {
        const asset = await assets.get(req.params.name!);
        if (!asset) throw new ApiError('not_found', 'No logo has this name.');
        const headers = {
          'Content-Type': asset.contentType,
          'Cache-Control': CACHE_CONTROL,
          ETag: asset.etag,
          // An SVG opened directly must not run script on the API's origin.
          'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
        };
        if (ifNoneMatchHits(header(req.event, 'if-none-match'), asset.etag)) return { statusCode: 304, headers, body: '' };
        // SVG is UTF-8 text; PNG travels base64-encoded through API Gateway (a binary media type).
        return asset.contentType === 'image/svg+xml'
          ? { statusCode: 200, headers, body: asset.body.toString('utf8') }
          : { statusCode: 200, headers, body: asset.body.toString('base64'), isBase64Encoded: true };
      },
    },
  };
}

/** Public routes: no authorization runs, but the pipeline's repositories stay wired like every family's. */
export const repositories = v1Repositories();

/**
 * Public images (sports logos) from the folder the function's package carries (the repository folder locally):
 * 40 KB of files that change only with a deploy need no bucket and no S3 client. The asset store is injected so
 * tests and other storage can stand in.
 */
export function createHandler(deps: Deps, assets: AssetStore = folderAssetStore(deps.config.sportsLogoDir)) {
  return apiHandler('assets', assetOperations(assets), deps, { routes: ASSETS_ROUTES, repositories });
}

/** The Lambda entry (lib/functions.ts). */
export const handler = createHandler(defaultDeps(repositories));
