import { defaultDeps } from '#platform/deps';
import { createDispatcher } from './handlers.js';

export const handler = createDispatcher(defaultDeps());
