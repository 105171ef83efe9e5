import { defaultDeps } from '../shared/deps.js';
import { createDeliverer } from './handlers.js';

export const handler = createDeliverer(defaultDeps());
