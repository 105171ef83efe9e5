import { defaultMessagingDeps } from '#platform/messaging-deps';
import { createHandler } from './index.js';

export const handler = createHandler(defaultMessagingDeps());
