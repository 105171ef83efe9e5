import { apiHandler, v1Repositories } from '#platform/api-handler';
import { ASSETS_ROUTES } from '#contract/routes';
import type { Deps } from '#platform/deps';
import { folderAssetStore, type AssetStore } from './asset-store.js';
import { assetOperations } from './operations.js';

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
