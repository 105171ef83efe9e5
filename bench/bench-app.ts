import { APP_RATE_CEILING_PER_MINUTE } from '#data/rate-counters';
import type { Scope } from '#contract/scopes';
import { createApp } from '#lambdas/admin/apps';
import type { LocalRuntime } from '#local/runtime';

/** Authorization headers for a fresh application of the runtime's store, at a limit the bench never meets. */
export async function benchAuthHeaders(
  runtime: LocalRuntime,
  groupId: string,
  name: string,
  scopes: readonly Scope[],
): Promise<Record<string, string>> {
  const { app, clientSecret } = await createApp(
    runtime.store,
    { groupId, name, scopes: [...scopes], rateLimitPerMinute: APP_RATE_CEILING_PER_MINUTE },
    runtime.deps.clock.now(),
  );
  const tokenReply = await fetch(`${runtime.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: clientSecret! }),
  });
  const { access_token } = (await tokenReply.json()) as { access_token: string };
  return { Authorization: `Bearer ${access_token}` };
}
