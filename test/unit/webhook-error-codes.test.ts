import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { classify, errorFromException } from '#lambdas/webhooks/attempt-rules';

/**
 * Network failures and timeouts are retried (contract 6.6), and each is recorded under its own safe code
 * (6.5 rule 9): Node's socket, DNS and TLS error codes map to those codes, and every one of them is a retry.
 */
const failure = (code: unknown) => Object.assign(new Error('socket'), { code });

describe("Node's error codes → safe codes, all retried", () => {
  it.each([
    ['ETIMEDOUT', 'timeout'],
    ['WEBHOOK_TIMEOUT', 'timeout'],
    ['ECONNREFUSED', 'connection_refused'],
    ['ECONNRESET', 'connection_reset'],
    ['EPIPE', 'connection_reset'],
    ['ENOTFOUND', 'dns_failure'],
    ['EAI_AGAIN', 'dns_failure'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls_error'],
    ['CERT_HAS_EXPIRED', 'tls_error'],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'tls_error'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls_error'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'tls_error'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls_error'],
    ['EHOSTUNREACH', 'network_error'],
  ] as const)('%s → %s', (code, safe) => {
    const error = errorFromException(failure(code));
    expect(error).toBe(safe);
    expect(classify({ error })).toBe('retry');
  });

  it('names a TLS failure only by a code that starts with a TLS prefix', () => {
    expect(errorFromException(failure('E_CERT_HAS_EXPIRED'))).toBe('network_error');
    expect(errorFromException(failure('X_ERR_SSL'))).toBe('network_error');
  });

  it('records anything that is no coded error as a network error, without throwing', () => {
    for (const thrown of [undefined, null, 'text', 42, {}, failure(undefined)]) {
      expect(errorFromException(thrown), inspect(thrown)).toBe('network_error');
    }
  });
});
