import { defaultMessagingDeps } from '#platform/deps';
import { createDispatcher } from './publish.js';

export const handler = createDispatcher(defaultMessagingDeps());
