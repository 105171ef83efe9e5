import { apiHandler } from '../shared/api-handler.js';
import type { Deps } from '../shared/deps.js';
import { defaultSportsLogoDir, folderAssetStore, type AssetStore } from './asset-store.js';
import { assetOperations } from './operations.js';

/** Public images (sports logos); the asset store is injected so tests and other storage can stand in. */
export function createHandler(deps: Deps, assets: AssetStore = folderAssetStore(defaultSportsLogoDir())) {
  return apiHandler('assets', assetOperations(assets), deps);
}
