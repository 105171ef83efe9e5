/**
 * The clock-in alerts' names, apart from the answers' schemas (schemas.ts) that list them too: the function that
 * raises them carries no schema.
 */

/** Each clock-in alert and the exception count that counts it, in the contract's order. */
export const EXCEPTION_COUNT_OF_ALERT = {
  wrong_job_code: 'wrongJobCodeClockIns',
  scheduled_but_missing: 'scheduledButMissing',
  clocked_in_not_scheduled: 'clockedInButNotScheduled',
  early_clock_in: 'earlyClockIns',
  late_clock_in: 'lateClockIns',
} as const;
export type ClockInAlert = keyof typeof EXCEPTION_COUNT_OF_ALERT;
