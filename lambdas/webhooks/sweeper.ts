import { defaultDeps } from '#platform/deps';
import { createSweeper } from './handlers.js';

export const handler = createSweeper(defaultDeps());
