import { defaultDeps } from '#platform/deps';
import { createHandler } from './index.js';

export const handler = createHandler(defaultDeps());
