import { defaultMessagingDeps } from '#platform/deps';
import { createDeliverer } from './handlers.js';

export const handler = createDeliverer(defaultMessagingDeps());
