import { defaultMessagingDeps } from '#platform/messaging-deps';
import { createDispatcher } from './menu-publish.js';

export const handler = createDispatcher(defaultMessagingDeps());
