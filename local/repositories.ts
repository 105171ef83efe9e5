import type { StoreWith } from '#data/repositories';
import { ADMIN_REPOSITORIES } from '#lambdas/admin/deps';
import type { MessagingDeps } from '#lambdas/webhooks/deps';

/** The local runtime holds every record: the admin API's store has them all (its own, the webhook room's, the loads'). */
export const LOCAL_REPOSITORIES = ADMIN_REPOSITORIES;
export type LocalStore = StoreWith<typeof LOCAL_REPOSITORIES>;
export type LocalDeps = MessagingDeps<LocalStore>;
