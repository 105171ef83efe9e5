/** Human output: aligned tables and "key  value" blocks. JSON output needs no help. */

export type Column<T> = [header: string, cell: (row: T) => string];

/** An aligned table with a header row; "(none)" when there are no rows. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  if (rows.length === 0) return '(none)';
  const cells = [columns.map(([header]) => header), ...rows.map((row) => columns.map(([, cell]) => cell(row)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return cells
    .map((line) =>
      line
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** One "key  value" line per field, keys aligned; null and undefined are skipped. */
export function fields(record: Record<string, unknown>, indent = '  '): string {
  const entries = Object.entries(record).filter(([, v]) => v !== undefined && v !== null && v !== '');
  const width = Math.max(0, ...entries.map(([k]) => k.length));
  return entries.map(([k, v]) => `${indent}${k.padEnd(width)}  ${show(v)}`).join('\n');
}

/** Lists as "a,b", records of switches as the keys that are on, "-" for none, the rest as strings. */
export function show(value: unknown): string {
  if (Array.isArray(value)) return value.join(',') || '-';
  if (value && typeof value === 'object') {
    return (
      Object.entries(value)
        .filter(([, on]) => on === true)
        .map(([k]) => k)
        .join(',') || '-'
    );
  }
  return String(value);
}
