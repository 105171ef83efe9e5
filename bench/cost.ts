/**
 * What a million requests cost at AWS's on-demand list prices, from what the
 * bench measured per request. The prices are us-east-1's published list
 * prices (no free tier, first pricing tier); every figure below is one of
 * them times a measured quantity, so a change of price is one line here.
 */
import type { ACCESS_LOG_FIELDS } from '#lib/constructs/api';
import { LAMBDA_LOGGING } from '#lib/lambda-logging';

/** The stage whose settings the cost lines follow (tracing; memory and logging are the same in every stage). */
const COSTED_STAGE = 'prod';

/**
 * Share of invocations X-Ray records under the stage's tracing setting:
 * Lambda's active tracing samples 1 request a second and 5 % of the rest
 * (at volume, 5 %); off, none. Loaded on demand: the stack pulls in aws-cdk-lib.
 */
export async function tracedShare(): Promise<{ share: number; note: string }> {
  const { STAGE_TABLE } = await import('#lib/stages');
  const on = STAGE_TABLE[COSTED_STAGE].tracing;
  return { share: on ? 0.05 : 0, note: `X-Ray ${on ? 'active (5 % sampled)' : 'off'}, stage ${COSTED_STAGE}'s setting` };
}

/**
 * Lambda's own lines per invocation in JSON format (platform.start and
 * platform.report, ~130 and ~230 bytes with a request id and the report's
 * metrics), sent only at system log level INFO or DEBUG.
 */
const PLATFORM_LINES_BYTES = 360;

/** Lambda's platform log bytes per invocation at the functions' system log level (lib/lambda-logging.ts): none at WARN. */
export function platformLogBytes(): { bytes: number; note: string } {
  const level = LAMBDA_LOGGING.systemLevel as string;
  return level === 'WARN'
    ? { bytes: 0, note: 'none at system level WARN' }
    : { bytes: PLATFORM_LINES_BYTES, note: `~${PLATFORM_LINES_BYTES} for platform.start and platform.report at system level ${level}` };
}

/** An EMF metrics line of its own, as a handler's middleware flushes it (an HTTP request's counts ride in its access line instead). */
export const isEmfLine = (chunk: string) => chunk.startsWith('{"_aws":');

/**
 * The service's logging as deployed (INFO, metrics on): what it writes to stdout from now on is counted in bytes,
 * its EMF lines apart, and kept off the bench's output until `restore` gives stdout and the metrics setting back.
 */
export function countServiceLogs() {
  const metricsDisabled = process.env.METRICS_DISABLED;
  process.env.METRICS_DISABLED = 'false';
  const write = process.stdout.write.bind(process.stdout);
  const bytes = { log: 0, emf: 0 };
  process.stdout.write = (chunk: string | Uint8Array) => {
    const n = Buffer.byteLength(chunk);
    if (isEmfLine(String(chunk))) bytes.emf += n;
    else bytes.log += n;
    return true;
  };
  return {
    bytes,
    restore() {
      process.stdout.write = write;
      if (metricsDisabled === undefined) delete process.env.METRICS_DISABLED;
      else process.env.METRICS_DISABLED = metricsDisabled;
    },
  };
}

/**
 * The HTTP API's own access-log line for one request (lib/constructs/api.ts
 * declares its fields), with typical values where the local gateway has none:
 * a 16-character request id, an IPv4 address, the timestamp's fixed format,
 * "-" for what a /v1 request leaves empty. Only the fields' type is imported:
 * the construct pulls in aws-cdk-lib.
 */
export async function gatewayAccessLogBytes(request: {
  method: string;
  routeKey: string;
  status: number;
  responseBytes: number;
  latencyMs: number;
}): Promise<number> {
  const typical: Record<keyof typeof ACCESS_LOG_FIELDS, string> = {
    requestId: 'AbCdEfGhIjKlMnO=',
    ip: '203.0.113.10',
    caller: '-',
    requestTime: '24/Nov/2026:20:46:08 +0000',
    httpMethod: request.method,
    routeKey: request.routeKey,
    status: String(request.status),
    protocol: 'HTTP/1.1',
    responseLength: String(request.responseBytes),
    responseLatency: String(Math.round(request.latencyMs)),
    integrationStatus: String(request.status),
    integrationError: '-',
    gatewayError: '-',
  };
  // One log event: the line and its newline.
  return Buffer.byteLength(JSON.stringify(typical)) + 1;
}

export const PRICES = {
  region: 'us-east-1',
  /** DynamoDB on-demand, standard table class: per read request unit (4 KB strongly consistent, or 2 × 4 KB eventually) and write request unit (1 KB). */
  dynamoReadUnit: 0.125e-6,
  dynamoWriteUnit: 0.625e-6,
  /** Lambda, arm64: per GB-second and per request. */
  lambdaGbSecond: 0.0000133334,
  lambdaRequest: 0.2e-6,
  /** CloudWatch Logs, standard class: per GB ingested. */
  logsGb: 0.5,
  /** X-Ray: per trace recorded. */
  xrayTrace: 5e-6,
  /** Data transfer out to the internet, first 10 TB: per GB. */
  transferGb: 0.09,
  /** API Gateway HTTP API, first 300 million a month: per request (of up to 512 KB). */
  httpApiRequest: 1e-6,
  /** SQS standard queue: per request (of up to 64 KB). */
  sqsRequest: 0.4e-6,
  /** Lambda provisioned concurrency, arm64: per GB-second kept warm, whether requests come or not. */
  lambdaProvisionedGbSecond: 0.0000033334,
} as const;

/**
 * Provisioned concurrency where the costed stage turns it on: paid per hour kept warm, not per request, so it is
 * reported beside the cost per million rather than in it.
 */
export async function provisionedLine(): Promise<string> {
  const { STAGE_TABLE } = await import('#lib/stages');
  const { FUNCTIONS } = await import('#lib/functions');
  const parts = Object.entries(STAGE_TABLE[COSTED_STAGE].provisionedConcurrency).filter(([, count]) => count > 0);
  if (!parts.length) return `  Provisioned concurrency: none in stage ${COSTED_STAGE}.`;
  const monthSeconds = 30 * 24 * 3600;
  const monthly = parts.reduce(
    (sum, [name, count]) =>
      sum + count * (FUNCTIONS[name as keyof typeof FUNCTIONS].memorySize / 1024) * monthSeconds * PRICES.lambdaProvisionedGbSecond,
    0,
  );
  return (
    `  Provisioned concurrency, apart (stage ${COSTED_STAGE}: ${parts.map(([name, count]) => `${name} ${count}`).join(', ')}): ` +
    `${dollars(monthly)} a month kept warm, whatever the requests (the requests it serves bill duration at a lower rate; not counted).`
  );
}

/** What one request used, averaged over the requests measured. */
export type PerRequest = {
  readUnits: number;
  writeUnits: number;
  /** Wall time the function would be billed for, ms (Lambda rounds up to 1 ms). */
  billedMs: number;
  memoryMb: number;
  /** Bytes written to the function's log group. */
  logBytes: number;
  /** Share of requests X-Ray records a trace of (the stack's sampling rule). */
  tracedShare: number;
  /** Bytes sent back to the client (status line, headers and body). */
  responseBytes: number;
  /** SQS requests (send, receive, delete, change visibility). */
  sqsRequests?: number;
  /**
   * Lambda invocations per unit (default 1: one request, one invocation). When
   * set, `billedMs` is the unit's share of their billed time, each invocation
   * already rounded up to 1 ms, and the request fee is charged per invocation.
   */
  invocations?: number;
};

const GB = 1024 ** 3;
const billedOf = (r: PerRequest) => (r.invocations === undefined ? Math.ceil(r.billedMs) : r.billedMs);

/** Each part's cost per million requests, in US dollars. */
export function costPerMillion(r: PerRequest): Record<'dynamodb' | 'lambda' | 'logs' | 'xray' | 'transfer' | 'sqs', number> {
  const million = 1e6;
  return {
    dynamodb: million * (r.readUnits * PRICES.dynamoReadUnit + r.writeUnits * PRICES.dynamoWriteUnit),
    lambda: million * ((r.memoryMb / 1024) * (billedOf(r) / 1000) * PRICES.lambdaGbSecond + (r.invocations ?? 1) * PRICES.lambdaRequest),
    logs: (million * r.logBytes * PRICES.logsGb) / GB,
    xray: million * r.tracedShare * PRICES.xrayTrace,
    transfer: (million * r.responseBytes * PRICES.transferGb) / GB,
    sqs: million * (r.sqsRequests ?? 0) * PRICES.sqsRequest,
  };
}

/** The parts' sum per million requests, in US dollars. */
export const totalPerMillion = (r: PerRequest): number => Object.values(costPerMillion(r)).reduce((sum, v) => sum + v, 0);

export const dollars = (value: number) => `$${value.toFixed(2)}`;

/** The cost lines of one kind of request: its inputs, each part, and the total beside the goal. */
export function costLines(what: string, r: PerRequest, goal: number | null, extra: string[] = [], unit = 'request'): string[] {
  const parts = costPerMillion(r);
  const total = totalPerMillion(r);
  return [
    `Cost per million ${what} at on-demand list prices (${PRICES.region}; no free tier):`,
    `  measured per ${unit}: ${r.readUnits.toFixed(2)} read units, ${r.writeUnits.toFixed(2)} write units, ` +
      (r.invocations === undefined
        ? `${Math.ceil(r.billedMs)} ms billed`
        : `${r.invocations.toFixed(2)} invocations, ${r.billedMs.toFixed(1)} ms billed`) +
      ` at ${r.memoryMb} MB arm64, ${Math.round(r.logBytes)} log bytes, ${Math.round(r.responseBytes)} ${unit === 'request' ? 'response' : 'sent'} bytes, ${(r.tracedShare * 100).toFixed(1)} % traced` +
      (r.sqsRequests ? `, ${r.sqsRequests.toFixed(2)} SQS requests` : ''),
    `  | DynamoDB | Lambda | logs | X-Ray | transfer out |${r.sqsRequests ? ' SQS |' : ''} total | goal |`,
    `  | ---: | ---: | ---: | ---: | ---: |${r.sqsRequests ? ' ---: |' : ''} ---: | ---: |`,
    `  | ${dollars(parts.dynamodb)} | ${dollars(parts.lambda)} | ${dollars(parts.logs)} | ${dollars(parts.xray)} | ${dollars(parts.transfer)} |` +
      `${r.sqsRequests ? ` ${dollars(parts.sqs)} |` : ''} ${dollars(total)} | ${goal === null ? '—' : `≤ ${dollars(goal)}`} |`,
    ...extra,
  ];
}
