import { defaultMessagingDeps } from './deps.js';
import { createDispatcher } from './publish.js';

export const handler = createDispatcher(defaultMessagingDeps());
