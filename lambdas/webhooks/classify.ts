/**
 * How one delivery attempt ended, as contract 6.6 and 7.4 classify it:
 * 2xx succeeds; network failures, timeouts, 408, 425, 429 and 5xx are
 * retried; every other status (3xx included: redirects are never followed)
 * fails permanently.
 */
export type AttemptOutcome = { status: number } | { error: AttemptError };

/** Safe error codes: recorded on deliveries and shown to ops; never a response body. */
export type AttemptError =
  'timeout' | 'connection_refused' | 'connection_reset' | 'dns_failure' | 'tls_error' | 'network_error' | 'blocked_address' | 'invalid_url';

export type Verdict = 'success' | 'retry' | 'permanent';

const RETRIED_STATUSES = new Set([408, 425, 429]);
/** The target itself is refused by policy: retrying cannot help. */
const PERMANENT_ERRORS = new Set<AttemptError>(['blocked_address', 'invalid_url']);

export function classify(outcome: AttemptOutcome): Verdict {
  if ('error' in outcome) return PERMANENT_ERRORS.has(outcome.error) ? 'permanent' : 'retry';
  const { status } = outcome;
  if (status >= 200 && status <= 299) return 'success';
  if (RETRIED_STATUSES.has(status) || (status >= 500 && status <= 599)) return 'retry';
  return 'permanent';
}

/** The safe code recorded for an outcome: `http_503`, `timeout`, … */
export function errorCodeOf(outcome: AttemptOutcome): string {
  return 'error' in outcome ? outcome.error : `http_${outcome.status}`;
}

/** Node's socket and TLS errors → safe codes. */
export function errorFromException(err: unknown): AttemptError {
  const code = (err as { code?: string })?.code ?? '';
  if (code === 'ETIMEDOUT' || code === 'WEBHOOK_TIMEOUT') return 'timeout';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection_reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns_failure';
  if (/^(ERR_TLS|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ERR_SSL)/.test(code)) return 'tls_error';
  return 'network_error';
}
