import { REPOSITORIES, type StoreWith } from '#data/repositories';
import { campaignsRepo } from '#lambdas/campaigns/records';
import { SHIFTQ_REPOSITORIES } from '#lambdas/shiftq/store';

/** The loaders write the shared venue records and the staff-and-operations and campaign records. */
export const INGEST_REPOSITORIES = { ...REPOSITORIES, ...SHIFTQ_REPOSITORIES, campaigns: campaignsRepo };
export type IngestStore = StoreWith<typeof INGEST_REPOSITORIES>;
