import { S3Client } from '@aws-sdk/client-s3';
import { apiHandler, v1Repositories } from '#platform/api-handler';
import { ASSETS_ROUTES } from '#contract/routes';
import type { Config } from '#platform/config';
import type { Deps } from '#platform/deps';
import { SPORTS_LOGO_DIR, SPORTS_LOGO_PREFIX } from '#contract/assets';
import { folderAssetStore, type AssetStore } from './asset-store.js';
import { assetOperations } from './operations.js';
import { s3AssetStore } from './s3-asset-store.js';

/** Public routes: no authorization runs, but the pipeline's repositories stay wired like every family's. */
export const repositories = v1Repositories();

/** Public images (sports logos); the asset store is injected so tests and other storage can stand in. */
export function createHandler(deps: Deps, assets: AssetStore = sportsLogoStore(deps.config)) {
  return apiHandler('assets', assetOperations(assets), deps, { routes: ASSETS_ROUTES, repositories });
}

/** The bucket the stack deployed the logos to, or the repository folder when no bucket is configured. */
function sportsLogoStore(config: Config): AssetStore {
  return config.assetBucket
    ? s3AssetStore({ client: new S3Client({}), bucket: config.assetBucket, prefix: SPORTS_LOGO_PREFIX })
    : folderAssetStore(SPORTS_LOGO_DIR);
}
