import { defaultMessagingDeps } from '#platform/deps';
import { createDeliverer } from './deliver.js';

export const handler = createDeliverer(defaultMessagingDeps());
