import { describe, expect, it } from 'vitest';
import { addressBucket, attemptSubject } from '#lambdas/token/issue-token';

describe('the token attempt throttle', () => {
  it('charges an IPv4 address as itself, an IPv6 address by its /64, an IPv4-mapped address as the IPv4 it carries', () => {
    expect(addressBucket('203.0.113.7')).toBe('4:203.0.113.7');
    expect(addressBucket('::ffff:203.0.113.7')).toBe('4:203.0.113.7');
    expect(addressBucket('2001:db8:1:2::1')).toBe(addressBucket('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(addressBucket('2001:db8:1:2::1')).not.toBe(addressBucket('2001:db8:1:3::1'));
    expect(addressBucket(undefined)).toBe('unknown');
  });

  it('keys a counter by a 64-character hash of client id and address, never the address itself', () => {
    const subject = attemptSubject('app_0123456789abcdef0123', '203.0.113.7');
    expect(subject).toMatch(/^[0-9a-f]{64}$/);
    expect(attemptSubject('app_0123456789abcdef0123', '203.0.113.8')).not.toBe(subject);
    expect(attemptSubject('app_0123456789abcdef0124', '203.0.113.7')).not.toBe(subject);
    expect(attemptSubject('app_x', 'x'.repeat(10_000))).toMatch(/^[0-9a-f]{64}$/);
  });
});
