import { addDays, daysBetween, parseCompactDate, parseIsoDate, zoneFormatter } from '#contract/business-date';
import type { CurrentData } from './inputs.js';

/** Current-state resources (POS menu, employees, reservations digest) as the API returns them, empty and unavailable before a first load. Pure. */

/** Employees hired within this many days before the business date are new team members. */
const NEW_TEAM_MEMBER_DAYS = 30;

export function posMenuView(input: CurrentData['posMenu'] | null) {
  const groups = input?.groups ?? [];
  const items = groups.flatMap((g) => g.items);
  return {
    available: input !== null,
    updatedAt: input?.updatedAt ?? null,
    stockUpdatedAt: input?.stockUpdatedAt ?? null,
    currency: input?.currency ?? null,
    itemCount: items.length,
    soldOutItemCount: items.filter((i) => i.soldOut).length,
    groups,
  };
}

export function employeesView(input: CurrentData['employees'] | null, businessDate: string) {
  const today = parseCompactDate(businessDate)!;
  const isNew = (hiredOn: string) => {
    const age = daysBetween(parseIsoDate(hiredOn) ?? addDays(today, 1), today);
    return age >= 0 && age < NEW_TEAM_MEMBER_DAYS;
  };
  const employees = (input?.employees ?? []).map((e) => ({ ...e, newTeamMember: isNew(e.hiredOn) }));
  return {
    available: input !== null,
    updatedAt: input?.updatedAt ?? null,
    businessDate,
    newTeamMemberCount: employees.filter((e) => e.newTeamMember).length,
    employees,
    jobs: input?.jobs ?? [],
    shifts: input?.shifts ?? [],
    timeEntries: input?.timeEntries ?? [],
  };
}

const asOfFormat = zoneFormatter({ weekday: 'short', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
const asOfLabel = (timeZone: string, iso: string) => `As of ${asOfFormat(timeZone).format(Date.parse(iso))}`;

export function reservationsView(input: CurrentData['reservations'] | null, venueLabel: string, timeZone: string) {
  const days = (input?.days ?? []).map((d) => ({
    dayKey: d.dayKey,
    label: d.label,
    parties: d.items.length,
    covers: d.items.reduce((n, i) => n + i.partySize, 0),
    items: d.items,
  }));
  return {
    venueLabel: input?.venueLabel ?? venueLabel,
    asOf: input?.asOf ?? null,
    ...(input ? { asOfLabel: asOfLabel(timeZone, input.asOf) } : {}),
    dayCount: days.length,
    totalParties: days.reduce((n, d) => n + d.parties, 0),
    totalCovers: days.reduce((n, d) => n + d.covers, 0),
    days,
  };
}
