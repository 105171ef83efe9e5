import * as v from 'valibot';
import { refresh } from './common.js';
import { locationRef } from './discovery.js';

/** Order board placeholder (contract 2.10). */
export const orderboardData = v.object({
  location: locationRef,
  refresh,
  status: v.literal('coming_soon'),
  message: v.string(),
});
