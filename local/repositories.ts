import type { StoreWith } from '#data/repositories';
import { ADMIN_REPOSITORIES } from '#lambdas/admin/deps';
import type { MessagingDeps } from '#lambdas/webhooks/deps';
import { INGEST_REPOSITORIES } from '#lambdas/producers/loads/store';

/** The local runtime holds every record: the admin API's (with the webhook room's) and the loaders'. */
export const LOCAL_REPOSITORIES = { ...ADMIN_REPOSITORIES, ...INGEST_REPOSITORIES };
export type LocalStore = StoreWith<typeof LOCAL_REPOSITORIES>;
export type LocalDeps = MessagingDeps<LocalStore>;
