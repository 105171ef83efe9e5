import { defaultMessagingDeps } from '#platform/deps';
import { createDispatcher } from './publish-handler.js';

export const handler = createDispatcher(defaultMessagingDeps());
