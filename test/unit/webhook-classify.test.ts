import { describe, expect, it } from 'vitest';
import { classify, errorCodeOf, errorFromException } from '#lambdas/webhooks/attempt-rules';

describe('classify', () => {
  it('succeeds on every 2xx', () => {
    for (const status of [200, 201, 202, 204, 299]) expect(classify({ status }), String(status)).toBe('success');
  });
  it('retries 408, 425, 429, every 5xx, network failures and timeouts', () => {
    for (const status of [408, 425, 429, 500, 502, 503, 504, 599]) expect(classify({ status }), String(status)).toBe('retry');
    for (const error of ['timeout', 'connection_refused', 'connection_reset', 'dns_failure', 'tls_error', 'network_error'] as const) {
      expect(classify({ error }), error).toBe('retry');
    }
  });
  it('fails permanently on redirects, other 4xx, odd statuses and refused targets', () => {
    for (const status of [100, 199, 300, 301, 302, 304, 307, 308, 400, 401, 403, 404, 409, 410, 422, 426, 431, 451, 600]) {
      expect(classify({ status }), String(status)).toBe('permanent');
    }
    expect(classify({ error: 'blocked_address' })).toBe('permanent');
    expect(classify({ error: 'invalid_url' })).toBe('permanent');
  });
  it('records safe codes only', () => {
    expect(errorCodeOf({ status: 503 })).toBe('http_503');
    expect(errorCodeOf({ error: 'timeout' })).toBe('timeout');
    expect(errorFromException(Object.assign(new Error(), { code: 'ECONNREFUSED' }))).toBe('connection_refused');
    expect(errorFromException(Object.assign(new Error(), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }))).toBe('tls_error');
    expect(errorFromException(Object.assign(new Error(), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }))).toBe('tls_error');
    expect(errorFromException(new Error('x'))).toBe('network_error');
  });
});
