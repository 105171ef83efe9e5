import { RATE_WARNING_FRACTION } from './config.js';

/** A fixed one-minute UTC window (contract 8). */
export type RateWindow = { start: string; resetSeconds: number; expiresAtSeconds: number };

export function rateWindow(nowMs: number): RateWindow {
  const startMs = nowMs - (nowMs % 60_000);
  return {
    start: new Date(startMs).toISOString().slice(0, 16),
    resetSeconds: Math.max(1, Math.ceil((startMs + 60_000 - nowMs) / 1000)),
    // Counters outlive their window briefly; TTL then removes them.
    expiresAtSeconds: Math.ceil((startMs + 60_000) / 1000) + 3600,
  };
}

export type RateDecision = {
  allowed: boolean;
  headers: Record<string, string>;
  /** An owner alert this exact count triggers: each count is seen by one request only. */
  alert: 'warning' | 'exceeded' | null;
};

export function decide(count: number, limit: number, window: RateWindow): RateDecision {
  const allowed = count <= limit;
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(Math.max(0, limit - count)),
    'RateLimit-Reset': String(window.resetSeconds),
    'RateLimit-Policy': `${limit};w=60`,
  };
  if (!allowed) headers['Retry-After'] = String(window.resetSeconds);
  const warnAt = Math.ceil(limit * RATE_WARNING_FRACTION);
  const alert = count === limit + 1 ? 'exceeded' : count === warnAt ? 'warning' : null;
  return { allowed, headers, alert };
}
