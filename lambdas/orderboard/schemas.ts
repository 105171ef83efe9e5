import * as v from 'valibot';
import { refresh } from '#contract/schemas/common';
import { locationRef } from '#contract/schemas/discovery';

/** Order board placeholder (contract 2.10). */
export const orderboardData = v.object({
  location: locationRef,
  refresh,
  status: v.literal('coming_soon'),
  message: v.string(),
});
