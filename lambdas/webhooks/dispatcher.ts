import { defaultMessagingDeps } from '#platform/messaging-deps';
import { createDispatcher } from './publish-handler.js';

export const handler = createDispatcher(defaultMessagingDeps());
