import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { deviceHealthOf, deviceStatusOf } from '#domain/device-health';
import { stopTransition, StopTransitionError } from '#lambdas/matriq/stop-transitions';
import { ApiError } from '#contract/errors';
import { idempotencyKeyOf, isJsonMediaType, parseJsonBody } from '#platform/input';
import { emergencyStopBody } from '#contract/schemas/requests';

const NOW = Date.UTC(2026, 10, 22, 12);
const ago = (min: number) => new Date(NOW - min * 60_000).toISOString();

describe('device health', () => {
  it.each([
    [0, 'healthy'],
    [5, 'healthy'],
    [5.01, 'warning'],
    [30, 'warning'],
    [31, 'offline'],
  ] as const)('%s min → %s', (min, health) => expect(deviceHealthOf(ago(min), NOW)).toBe(health));
  it('never seen is offline; counts add up', () => {
    expect(deviceHealthOf(null, NOW)).toBe('offline');
    expect(deviceStatusOf([{ lastSeenAt: ago(1) }, { lastSeenAt: ago(10) }, { lastSeenAt: null }, { lastSeenAt: ago(1) }], NOW)).toEqual({
      healthy: 2,
      warning: 1,
      offline: 1,
    });
  });
});

describe('stop command transitions', () => {
  it('queued completes either way; the same report repeats; a contradiction is refused', () => {
    expect(stopTransition('queued', 'applied')).toBe('complete');
    expect(stopTransition('queued', 'failed')).toBe('complete');
    expect(stopTransition('applied', 'applied')).toBe('repeat');
    expect(stopTransition('failed', 'failed')).toBe('repeat');
    expect(() => stopTransition('applied', 'failed')).toThrow(StopTransitionError);
    expect(() => stopTransition('failed', 'applied')).toThrow(StopTransitionError);
  });
});

const event = (body: string | null, headers: Record<string, string> = { 'Content-Type': 'application/json' }, base64 = false) =>
  ({
    body: base64 && body ? Buffer.from(body).toString('base64') : body,
    isBase64Encoded: base64,
    headers,
  }) as unknown as APIGatewayProxyEvent;
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as ApiError).code;
  }
  return 'ok';
};

describe('parseJsonBody', () => {
  it('absent body is {}; JSON object validated; base64 bodies decoded', () => {
    expect(parseJsonBody(event(null, {}), emergencyStopBody)).toEqual({});
    expect(parseJsonBody(event('{"reason":" x "}'), emergencyStopBody)).toEqual({ reason: 'x' });
    expect(
      parseJsonBody(event('{"deviceId":"d"}', { 'content-type': 'application/json; charset=UTF-8' }, true), emergencyStopBody),
    ).toEqual({ deviceId: 'd' });
  });
  it.each([
    ['{"reason":', 'invalid_request'],
    ['null', 'invalid_request'],
    ['"x"', 'invalid_request'],
    ['[1]', 'invalid_request'],
    ['{"extra":1}', 'invalid_request'],
    ['{"deviceId":""}', 'invalid_request'],
  ])('%s → %s', (body, code) => expect(codeOf(() => parseJsonBody(event(body), emergencyStopBody))).toBe(code));
  it('size and media type', () => {
    expect(codeOf(() => parseJsonBody(event(`{"reason":"${'x'.repeat(16 * 1024)}"}`), emergencyStopBody))).toBe('payload_too_large');
    expect(codeOf(() => parseJsonBody(event('{}', { 'Content-Type': 'text/plain' }), emergencyStopBody))).toBe('unsupported_media_type');
    expect(codeOf(() => parseJsonBody(event('{}', {}), emergencyStopBody))).toBe('unsupported_media_type');
    expect(isJsonMediaType('application/json;charset="utf-8"')).toBe(true);
    expect(isJsonMediaType('application/jsonp')).toBe(false);
  });
  it('Idempotency-Key', () => {
    expect(idempotencyKeyOf(event(null, { 'Idempotency-Key': '3f2a1b9c-0000-4000-8000-000000000000' }))).toBe(
      '3f2a1b9c-0000-4000-8000-000000000000',
    );
    expect(idempotencyKeyOf(event(null, {}))).toBeNull();
    expect(codeOf(() => idempotencyKeyOf(event(null, { 'idempotency-key': 'bad key with spaces' })))).toBe('invalid_request');
  });
});
