import * as z from 'zod';
import { refresh } from './common.js';
import { locationRef } from './discovery.js';

/** Order board placeholder (contract 2.10). */
export const orderboardData = z.object({
  location: locationRef,
  refresh,
  status: z.literal('coming_soon'),
  message: z.string(),
});
