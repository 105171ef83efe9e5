/**
 * Every function's Lambda logging (advanced logging controls), the same in
 * every stage. JSON, so Lambda filters by level; Powertools already writes
 * one JSON object per line straight to stdout, which Lambda passes through.
 * Application INFO: the access log and the webhook attempt lines (the
 * DeliveryFailures metric filter) are INFO, and Lambda files the EMF metrics
 * line, which has no `level`, as INFO too. System WARN: Lambda then sends no
 * START/END/REPORT lines, only platform warnings and errors
 * (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-log-level.html).
 */
export const LAMBDA_LOGGING = { format: 'JSON', applicationLevel: 'INFO', systemLevel: 'WARN' } as const;
