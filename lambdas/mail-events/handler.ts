import { defaultDeps } from '#platform/deps';
import { createHandler, repositories } from './index.js';

export const handler = createHandler(defaultDeps(repositories));
