import type { DatedData } from './inputs.js';
import { type ClockInAlert, EXCEPTION_COUNT_OF_ALERT } from './clock-in-alerts.js';

/**
 * Clock-in alerts, role coverage and attendance exceptions of one business
 * day, derived from scheduled shifts and punches as of the data's `asOf`.
 * Pure. The overview counts come from this same function, so they agree.
 */

/** Punching in more than this before the scheduled start is early. */
const EARLY_MINUTES = 10;
/** Punching in more than this after the scheduled start is late; not in by then is missing. */
const GRACE_MINUTES = 5;

const MINUTE = 60_000;

/** Without a load for the day: nobody in, nothing to alert on. */
export function clockInsView(input: DatedData['clockIns'] | null) {
  const asOfMs = input ? Date.parse(input.asOf) : 0;
  const alerts: { type: ClockInAlert; employeeId: string; employeeName: string; roleGroup: string; detail: string }[] = [];
  const coverage = new Map<string, { roleGroup: string; scheduledCount: number; clockedInCount: number; managerOnDuty: boolean }>();
  const clockedIn = [];
  for (const e of input?.entries ?? []) {
    const who = { employeeId: e.employeeId, employeeName: e.employeeName, roleGroup: e.roleGroup };
    const alert = (type: ClockInAlert, detail: string) => alerts.push({ type, ...who, detail });
    const role = coverage.get(e.roleGroup) ?? { roleGroup: e.roleGroup, scheduledCount: 0, clockedInCount: 0, managerOnDuty: false };
    coverage.set(e.roleGroup, role);
    if (e.scheduled) role.scheduledCount++;
    const { scheduled, punch } = e;
    if (punch && punch.clockedOutAt === null) {
      role.clockedInCount++;
      if (e.isManager) role.managerOnDuty = true;
      clockedIn.push({ ...who, jobCode: punch.jobCode, isManager: e.isManager, clockedInAt: punch.clockedInAt });
    }
    if (scheduled && punch) {
      const delta = (Date.parse(punch.clockedInAt) - Date.parse(scheduled.start)) / MINUTE;
      if (punch.jobCode !== scheduled.jobCode) alert('wrong_job_code', `clocked in as ${punch.jobCode}, scheduled as ${scheduled.jobCode}`);
      if (delta < -EARLY_MINUTES) alert('early_clock_in', `${Math.round(-delta)} minutes before the scheduled start`);
      if (delta > GRACE_MINUTES) alert('late_clock_in', `${Math.round(delta)} minutes after the scheduled start`);
    } else if (scheduled && asOfMs > Date.parse(scheduled.start) + GRACE_MINUTES * MINUTE) {
      alert('scheduled_but_missing', `scheduled from ${scheduled.start}, not clocked in`);
    } else if (punch && !scheduled) {
      alert('clocked_in_not_scheduled', 'clocked in without a scheduled shift');
    }
  }

  return {
    available: input !== null,
    asOf: input?.asOf ?? null,
    clockedInCount: clockedIn.length,
    managerOnDutyCount: clockedIn.filter((c) => c.isManager).length,
    clockedIn,
    roleCoverage: [...coverage.values()].sort((a, b) => a.roleGroup.localeCompare(b.roleGroup)),
    alerts,
    exceptionCounts: Object.fromEntries(
      Object.entries(EXCEPTION_COUNT_OF_ALERT).map(([type, name]) => [name, alerts.filter((a) => a.type === type).length]),
    ) as Record<(typeof EXCEPTION_COUNT_OF_ALERT)[ClockInAlert], number>,
  };
}
