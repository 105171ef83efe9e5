import type { StoreWith } from '#data/repositories';
import type { ApiRequest, LocationRequest, Operation } from '#platform/api-handler';
import type { Deps } from '#platform/deps';
import { reviewsRepo } from './review-records.js';
import { shiftqRepo } from './records.js';

/** The staff and operations records: each resource by business date or current state, and the reviews. */
export const SHIFTQ_REPOSITORIES = { shiftq: shiftqRepo, reviews: reviewsRepo };
export type ShiftqStore = StoreWith<typeof SHIFTQ_REPOSITORIES>;
export type ShiftqDeps = Deps<ShiftqStore>;
/** A shiftq route's answer, over the family's store: a location's, unless told otherwise. */
export type ShiftqRun<R extends ApiRequest = LocationRequest> = Operation<ShiftqStore, R>['run'];
