import { defaultMessagingDeps } from '#platform/messaging-deps';
import { createDispatcher } from './handlers.js';

export const handler = createDispatcher(defaultMessagingDeps());
