import type { StoreWith } from '#data/repositories';
import { WEBHOOK_REPOSITORIES, type MessagingDeps } from '#lambdas/webhooks/deps';
import { auditRepo } from './audit-records.js';

/** The admin API composes the webhook room's records with its own audit trail. */
export const ADMIN_REPOSITORIES = { ...WEBHOOK_REPOSITORIES, audit: auditRepo };
export type AdminStore = StoreWith<typeof ADMIN_REPOSITORIES>;
export type AdminDeps = MessagingDeps<AdminStore>;
