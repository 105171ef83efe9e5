import { defaultMessagingDeps } from '#platform/messaging-deps';
import { createSweeper } from './handlers.js';

export const handler = createSweeper(defaultMessagingDeps());
