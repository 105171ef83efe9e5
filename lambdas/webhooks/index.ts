/**
 * The webhook room's public surface: what the admin API, the CLI and the local runtime call. Beside it only
 * handlers.ts (the deliverer's and the sweeper's factories, kept apart so the admin bundle never carries the
 * SQS batch processor); nothing outside lambdas/webhooks/ imports any other module of the room
 * (test/unit/layout.test.ts), so the room's files can follow the journey without reaching into callers.
 */
export { publishDocument, publishMenu } from './publish.js';
export { appIneligibility, covers, isPaused, newDelivery, queueDelivery } from './fan-out.js';
export { testEventId } from './messages.js';
export { requeueVanished } from './requeue.js';
export { deadLetterSummary, dlqDepth, redrive, redrivePage, showDeadLetter, type RedriveResult } from './dead-letters.js';
