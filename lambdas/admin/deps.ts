import type { StoreWith } from '#data/repositories';
import { INGEST_REPOSITORIES } from '#lambdas/producers/loads/store';
import { WEBHOOK_REPOSITORIES, type MessagingDeps } from '#lambdas/webhooks/deps';
import { auditRepo } from './audit-records.js';

/** The admin API composes the webhook room's records, those the operators' loads write, and its own audit trail. */
export const ADMIN_REPOSITORIES = { ...WEBHOOK_REPOSITORIES, ...INGEST_REPOSITORIES, audit: auditRepo };
export type AdminStore = StoreWith<typeof ADMIN_REPOSITORIES>;
export type AdminDeps = MessagingDeps<AdminStore>;
