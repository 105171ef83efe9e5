import { defaultMessagingDeps } from './deps.js';
import { createFanOutConsumer } from './fan-out.js';

/**
 * The fan-out queue's consumer (its event source): a published menu's pages of destinations and resumed
 * destinations' releases. Menus reach it only as wake-ups: the admin API and the producer routes publish them.
 */
export const handler = createFanOutConsumer(defaultMessagingDeps());
