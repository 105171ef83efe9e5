export { ApiError } from './errors.js';
export { createCustomerApiClient, type CustomerApiClient, type CustomerApiOptions } from './client.js';
export type { RetryBudget } from './retry.js';
export { memoryMenuStore, reconcileMenus, syncMenu, type Menu, type MenuCopy, type MenuStore, type SyncResult } from './menu-sync.js';
export {
  signTestPayload,
  verifyWebhook,
  type RawBody,
  type VerifyFailure,
  type VerifyOptions,
  type VerifyResult,
  type WebhookEvent,
  type WebhookHeaders,
} from './webhooks.js';
export { memoryDedupe, type EventDedupe } from './dedupe.js';
export {
  checkScope,
  receiveMenuEvent,
  type ExpectedScope,
  type MenuEventInput,
  type MenuEventOutcome,
  type ScopeFailure,
} from './receive.js';
export type { paths, components, webhooks } from './schema.js';
