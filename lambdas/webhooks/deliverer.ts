import { defaultMessagingDeps } from '#platform/messaging-deps';
import { createDeliverer } from './handlers.js';

export const handler = createDeliverer(defaultMessagingDeps());
