import { defaultMessagingDeps } from './deps.js';
import { createDeliverer } from './deliver.js';

export const handler = createDeliverer(defaultMessagingDeps());
