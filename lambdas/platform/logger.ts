/**
 * Structured JSON lines on stdout, one per call: level, message, timestamp,
 * service, the invocation's request id and cold start, and the caller's
 * keys. Lambda's JSON log format passes such lines through as they are and
 * its application log level (AWS_LAMBDA_LOG_LEVEL) is honoured here too.
 * Two dozen lines instead of Powertools Logger: the request path's bundles
 * have a size budget (docs/development.md, "Observability", measures both).
 *
 * Nothing that could carry a credential is ever passed to it: no headers,
 * bodies or query strings, only route, status and ids.
 */
export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';

const RANK: Record<LogLevel, number> = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40, SILENT: 100 };

export type LoggerOptions = { serviceName: string; logLevel?: LogLevel };

/** What a Lambda invocation adds to every line it writes. */
export type InvocationKeys = { function_request_id: string; cold_start: boolean };

/** Errors as their name, message and stack (JSON.stringify alone writes `{}`). */
const errorsAsObjects = (_key: string, value: unknown) =>
  value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;

export class Logger {
  private readonly threshold: number;
  private readonly service: string;
  private invocation: InvocationKeys | undefined;

  constructor({ serviceName, logLevel }: LoggerOptions) {
    this.service = serviceName;
    const level = logLevel ?? (process.env.AWS_LAMBDA_LOG_LEVEL?.toUpperCase() as LogLevel | undefined);
    this.threshold = RANK[level ?? 'INFO'] ?? RANK.INFO;
  }

  debug(message: string, keys?: Record<string, unknown>): void {
    this.write('DEBUG', message, keys);
  }
  info(message: string, keys?: Record<string, unknown>): void {
    this.write('INFO', message, keys);
  }
  warn(message: string, keys?: Record<string, unknown>): void {
    this.write('WARN', message, keys);
  }
  error(message: string, keys?: Record<string, unknown>): void {
    this.write('ERROR', message, keys);
  }

  /** Keys every line of the current invocation carries; undefined between invocations. */
  setInvocation(keys: InvocationKeys | undefined): void {
    this.invocation = keys;
  }

  private write(level: Exclude<LogLevel, 'SILENT'>, message: string, keys: Record<string, unknown> | undefined): void {
    if (RANK[level] < this.threshold) return;
    const line = { level, message, timestamp: new Date().toISOString(), service: this.service, ...this.invocation, ...keys };
    process.stdout.write(`${JSON.stringify(line, errorsAsObjects)}\n`);
  }
}

/** One logger per Lambda process. */
export const logger = new Logger({ serviceName: 'customer-api' });
