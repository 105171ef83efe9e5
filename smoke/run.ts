import { createHash } from 'node:crypto';
import type { Context } from './context.js';
import { discoveryCheck } from './discovery.js';
import { edgeChecks } from './edge.js';
import { errorChecks } from './errors.js';
import { httpClient } from './http.js';
import { logoChecks, logoName } from './logo.js';
import { moduleReads } from './modules.js';
import { Check, Report } from './report.js';
import { tokenChecks } from './token.js';

export type SmokeOptions = {
  baseUrl: string;
  groupId: string;
  clientId: string;
  clientSecret: string;
  /**
   * Also try wrong secrets and a wrong grant (default). Each counts against the client's token attempts
   * from its address (TOKEN_ATTEMPTS_PER_MINUTE): the post-deploy hook, run once per function of a deploy, leaves them out.
   */
  tokenRefusals?: boolean;
  /** The API Gateway URL behind the stage's edge: adds the edge's checks (only the edge gets in; nothing cached; URLs on the base). */
  originUrl?: string | undefined;
};

/**
 * The contract's read-only checks against a deployed stage (or `npm start`), printed as they run.
 * Nothing is written apart from what any client causes: issued tokens and rate counters.
 * Returns true when every check passed.
 */
export async function runSmoke(options: SmokeOptions, print: (line: string) => void): Promise<boolean> {
  const report = new Report(print);
  report.redact(options.clientSecret);
  const ctx: Context = { ...options, http: httpClient(options.baseUrl), report };
  report.line(`Smoke checks of ${options.baseUrl} as ${options.clientId}, group ${options.groupId}`);

  // A step that throws (network error, timeout) is one failed check; the others still run.
  const step = async <T>(name: string, run: () => Promise<T>): Promise<T | null> => {
    try {
      return await run();
    } catch (error) {
      report.add(new Check(name).holds('answer', 'an HTTP answer', false, describe(error)));
      return null;
    }
  };

  const token = await step('token', () => tokenChecks(ctx, options.tokenRefusals ?? true));
  if (token) report.line(`      access token ${fingerprint(token)} (fingerprint)`);
  const discovery = token ? await step('discovery', () => discoveryCheck(ctx, token)) : null;
  if (!token) report.notRun('discovery: locations', 'an access token');
  const bodies = token && discovery ? await step('module reads', () => moduleReads(ctx, token, discovery)) : null;
  if (!discovery) report.notRun('module reads', 'a discovery answer with locations');
  await step('logo', () => logoChecks(ctx, logoName(bodies ?? [])));
  await step('errors', () => errorChecks(ctx, token));
  if (options.originUrl) await step('edge', () => edgeChecks(ctx, token, { baseUrl: options.baseUrl, originUrl: options.originUrl! }));

  const total = report.passed + report.failed.length;
  const counts = `${report.passed} of ${total} checks passed, ${report.skipped} skipped`;
  report.line(
    report.failed.length === 0
      ? `SMOKE PASS  ${counts} against ${options.baseUrl}`
      : `SMOKE FAIL  ${counts}; differ: ${report.failed.join(', ')}`,
  );
  return report.failed.length === 0;
}

/** Enough to tell two runs' tokens apart, nothing to use one with. */
function fingerprint(token: string): string {
  return `sha256:${createHash('sha256').update(token).digest('hex').slice(0, 12)}`;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause ? `${error.message}: ${cause.code ?? cause.message}` : error.message;
}
