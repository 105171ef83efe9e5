import { runSmoke } from './run.js';

/** What CodeDeploy passes a lifecycle hook (here AfterAllowTraffic): the ids its status report must name. */
export type HookEvent = { DeploymentId: string; LifecycleEventHookExecutionId: string };
/** The two outcomes PutLifecycleEventHookExecutionStatus accepts from a hook. */
export type HookStatus = 'Succeeded' | 'Failed';
/** The smoke application, as its secret stores it. */
export type SmokeCredentials = { clientId: string; clientSecret: string; groupId: string };

export type SmokeHookDeps = {
  /** The smoke application's secret as Secrets Manager holds it: the SecretString, JSON `{clientId, clientSecret, groupId}`. */
  credentials(): Promise<string>;
  /** Tells CodeDeploy the outcome for this event's deployment and hook execution (called once per run). */
  report(status: HookStatus, event: HookEvent): Promise<void>;
  /** The stage's public URL (a stage URL keeps its `/prod` prefix); undefined when the function was deployed without it. */
  baseUrl: string | undefined;
  /** Where the check lines and the hook's own lines go; nothing passed here carries the secret or a token. */
  print(line: string, level: 'info' | 'error'): void;
};

/**
 * Kept back from the function's remaining time for the status call (the SDK retries it): a smoke run still going
 * then is reported Failed, since a hook that never reports holds the deployment for an hour before CodeDeploy gives up.
 */
export const REPORT_RESERVE_MS = 10_000;

/**
 * The canary's post-traffic gate: the contract's read-only smoke checks against the stage, then Succeeded or
 * Failed to CodeDeploy, which rolls the alias back on Failed. Whatever goes wrong before the report (the secret
 * unreadable or malformed, the URL missing, the network, the time running out) is a Failed report with its reason
 * printed. Only a failing report itself is thrown, so Lambda's retry of the invocation can try again.
 */
export function createSmokeHook(deps: SmokeHookDeps) {
  return async (event: HookEvent, options: { timeLeftMs?: number } = {}): Promise<HookStatus> => {
    if (!event?.DeploymentId || !event?.LifecycleEventHookExecutionId) {
      // Nothing to report to: CodeDeploy did not send this event.
      const error = new Error('not a CodeDeploy lifecycle event: DeploymentId and LifecycleEventHookExecutionId are required');
      deps.print(`smoke hook: ${error.message}`, 'error');
      throw error;
    }

    // Everything this hook prints beyond runSmoke's own (already redacted) lines passes through here.
    const secrets: string[] = [];
    const print = (line: string, level: 'info' | 'error' = 'info') =>
      deps.print(
        secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), line),
        level,
      );

    const smoke = async (): Promise<boolean> => {
      const baseUrl = checkedBaseUrl(deps.baseUrl);
      const credentials = parseSmokeSecret(await deps.credentials());
      if (credentials.clientSecret.length >= 8) secrets.push(credentials.clientSecret);
      return runSmoke({ baseUrl, ...credentials, tokenRefusals: false }, (line) => print(line));
    };

    let status: HookStatus;
    try {
      status = (await withDeadline(smoke(), options.timeLeftMs)) ? 'Succeeded' : 'Failed';
    } catch (error) {
      print(`smoke hook: could not run the smoke checks: ${describe(error)}`, 'error');
      status = 'Failed';
    }

    try {
      await deps.report(status, event);
    } catch (error) {
      print(`smoke hook: could not report ${status} to CodeDeploy for deployment ${event.DeploymentId}: ${describe(error)}`, 'error');
      throw error;
    }
    print(`smoke hook: reported ${status} to CodeDeploy for deployment ${event.DeploymentId}`, status === 'Failed' ? 'error' : 'info');
    return status;
  };
}

/**
 * The secret's JSON, checked field by field. Never quotes the text: V8's JSON.parse messages carry a snippet of
 * their input, which here is the client secret, so only the position is kept.
 */
function parseSmokeSecret(secretString: string): SmokeCredentials {
  let value: unknown;
  try {
    value = JSON.parse(secretString);
  } catch (error) {
    const at = /position \d+/.exec(error instanceof Error ? error.message : '')?.[0];
    throw new Error(`the smoke secret is not JSON${at ? ` (at ${at})` : ''}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error('the smoke secret is not a JSON object {"clientId","clientSecret","groupId"}');
  }
  const fields = value as Record<string, unknown>;
  const missing = ['clientId', 'clientSecret', 'groupId'].filter((name) => typeof fields[name] !== 'string' || !fields[name]);
  if (missing.length) throw new Error(`the smoke secret lacks ${missing.join(', ')} (each a non-empty string)`);
  return { clientId: fields.clientId as string, clientSecret: fields.clientSecret as string, groupId: fields.groupId as string };
}

function checkedBaseUrl(baseUrl: string | undefined): string {
  if (!baseUrl) throw new Error('SMOKE_BASE_URL is not set');
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : null;
  if (!url || !['http:', 'https:'].includes(url.protocol)) throw new Error('SMOKE_BASE_URL is not an http(s) URL');
  return baseUrl;
}

/** The run, or a rejection when it would leave too little of the function's time to report. */
async function withDeadline<T>(run: Promise<T>, timeLeftMs: number | undefined): Promise<T> {
  if (timeLeftMs === undefined) return run;
  const budget = timeLeftMs - REPORT_RESERVE_MS;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the smoke checks did not finish within ${Math.max(budget, 0)} ms of the function's time`)),
      Math.max(budget, 0),
    );
  });
  try {
    return await Promise.race([run, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: string; message?: string } | undefined;
  const text = error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message;
  return cause ? `${text}: ${cause.code ?? cause.message}` : text;
}
