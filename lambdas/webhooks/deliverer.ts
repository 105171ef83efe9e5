import { defaultDeps } from '#platform/deps';
import { createDeliverer } from './handlers.js';

export const handler = createDeliverer(defaultDeps());
