import { defaultMessagingDeps } from '#platform/deps';
import { createDispatcher } from './menu-publish.js';

export const handler = createDispatcher(defaultMessagingDeps());
