import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPENAPI_ARTEFACT } from '#contract/openapi-artefact';
import { SPORTS_LOGO_PACKAGE_DIR } from '#contract/assets';

/** The folder of the running bundle (in Lambda, the asset's root); relative paths in the environment start here. */
const BUNDLE_DIR = dirname(fileURLToPath(import.meta.url));

/** A setting: the environment variable it is read from, and how its value (undefined when unset) is read. */
const setting = <const E extends string, T>(env: E, read: (value: string | undefined) => T) => ({ env, read });
const text =
  (fallback = '') =>
  (value: string | undefined) =>
    value ?? fallback;

/** Deployment settings read from the environment once; every handler gets them through its deps. */
const SETTINGS = {
  tableName: setting('TABLE_NAME', text('customer-api')),
  webhookQueueUrl: setting('WEBHOOK_QUEUE_URL', text()),
  webhookDlqUrl: setting('WEBHOOK_DLQ_URL', text()),
  /** The fan-out queue: a publish's later pages and a resumed destination's releases, for the dispatcher. */
  fanOutQueueUrl: setting('WEBHOOK_FANOUT_QUEUE_URL', text()),
  /** The stop-command queue the device platform consumes (lambdas/matriq/stop-queue.ts); the matriq function and the sweeper send to it. */
  stopCommandQueueUrl: setting('STOP_COMMAND_QUEUE_URL', text()),
  /** Fixed public base URL (custom domain); when empty, absolute URLs follow the URL the client called. */
  publicBaseUrl: setting('PUBLIC_BASE_URL', (value) => (value ?? '').replace(/\/+$/, '')),
  /** Sender of owner e-mails (rate-limit alerts, destination changes). */
  mailFrom: setting('MAIL_FROM', text('no-reply@customer-api.invalid')),
  /** The SES configuration set every owner mail names (set by the stack): its event destination reports bounces and complaints; empty: none (local). */
  mailConfigurationSet: setting('MAIL_CONFIGURATION_SET', text()),
  stage: setting('STAGE', text('local')),
  /**
   * Requests a second every route's API Gateway throttle lets through at least, for all clients together (the
   * stage's per-route floor, set by the stack from STAGE_TABLE in lib/stages.ts); no application may be given a
   * per-minute limit above 60 times it. Unset outside a stage (tests, tools): no stage throttle, so only the data
   * design bounds a limit.
   */
  stageRateLimit: setting('STAGE_RATE_LIMIT', (value) => (value ? Number(value) : Infinity)),
  /**
   * The edge's origin secret in a stage (set by the stack on the `/v1` and token functions when the stage has an
   * edge): the Secrets Manager secret whose current and previous values the HTTP shell accepts in
   * `x-origin-verify` (platform/origin-secret.ts), read at cold start; the value itself is never in the environment.
   */
  originSecretArn: setting('ORIGIN_SECRET_ARN', text()),
  /**
   * Local runtime only: one origin secret's value, so `npm start` plays a stage behind its edge. Set, or with
   * originSecretArn, the HTTP shell refuses `/v1` and token requests without it with 403 (platform/http.ts,
   * originOf); neither, nothing is checked (dev, staging, `npm start` by default).
   */
  originSecret: setting('ORIGIN_SECRET', text()),
  /** When the legacy routes were or will be deprecated, and removed (ISO 8601 instants; null: no header is sent). */
  legacyDeprecatedAt: setting('LEGACY_DEPRECATED_AT', (value) => value || null),
  legacySunsetAt: setting('LEGACY_SUNSET_AT', (value) => value || null),
  /** Local runtime only: lets webhooks reach 127.0.0.0/8 and ::1 (test receivers). Off unless 1. */
  webhookAllowLoopback: setting('WEBHOOK_ALLOW_LOOPBACK', (value) => value === '1'),
  /** Multiplies every wait of the webhook delivery policy (attempt timeout, backoff, visibility); 1 in AWS, smaller locally so tests run in seconds. */
  webhookTimeScale: setting('WEBHOOK_TIME_SCALE', (value) => (value ? Number(value) : 1)),
  /** The signing access-token key version's age, in days, at which the sweeper adds a new one (0: by hand only). */
  tokenKeyRotationDays: setting('TOKEN_KEY_ROTATION_DAYS', (value) => Number(value ?? 0) || 0),
  /** HMAC key of review page tokens; empty → a random key created once and kept in the table. */
  pageTokenKey: setting('PAGE_TOKEN_KEY', text()),
  /**
   * The folder of the sports logos (relative to the bundle's folder): the stack ships it beside the assets bundle,
   * the local runtime passes the repository folder's absolute path.
   */
  sportsLogoDir: setting('SPORTS_LOGO_DIR', (value) => resolve(BUNDLE_DIR, value || SPORTS_LOGO_PACKAGE_DIR)),
  /**
   * The OpenAPI artefact the discovery function serves (relative to the bundle's folder): the stack ships it
   * beside the bundle, the local runtime writes one at start and passes its absolute path.
   */
  openApiDocumentPath: setting('OPENAPI_DOCUMENT_PATH', (value) => resolve(BUNDLE_DIR, value || OPENAPI_ARTEFACT)),
};
type Settings = typeof SETTINGS;

export type Config = { [K in keyof Settings]: ReturnType<Settings[K]['read']> } & {
  /**
   * Local runtime only: the `npm run listen` inbox it reserved at start (origin `https://127.0.0.1:PORT`), the one
   * loopback destination it accepts and delivers to, and the CA its deliverer trusts for that origin alone. Never read
   * from the environment, so no stage can be given one; null everywhere but the local runtime.
   */
  webhookListenInbox: { origin: string; ca: string } | null;
};

/** The environment variable each setting is read from: the stack sets them by these names (lib/), nothing spells them again. */
export const ENV = Object.fromEntries(Object.entries(SETTINGS).map(([name, { env }]) => [name, env])) as {
  [K in keyof Settings]: Settings[K]['env'];
};

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  const read = Object.entries(SETTINGS).map(([name, { env: variable, read }]) => [name, read(env[variable])]);
  return { ...(Object.fromEntries(read) as Omit<Config, 'webhookListenInbox'>), webhookListenInbox: null };
}

/** Fixed lifetimes and limits of the contract (5.1, 8). */
export const ACCESS_TOKEN_TTL_SECONDS = 86_400;
/**
 * How long a replaced access-token key version keeps verifying: the last token it signed lives its 24 hours, plus
 * five minutes for an exchange that read the old version just before the new one was added.
 */
export const TOKEN_KEY_RETIRE_AFTER_MS = (ACCESS_TOKEN_TTL_SECONDS + 300) * 1000;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
/**
 * Token-endpoint attempts per client id and source address (an IPv4 address, an IPv6 /64) per minute, whatever
 * their outcome, counted before the secret is checked: past this many the pair's attempts are refused, but for the
 * right secret from an admitted address (docs/decisions/token-throttle.md).
 */
export const TOKEN_ATTEMPTS_PER_MINUTE = 30;
/** An address that got a token for a client id is admitted for it this long after: a day's renewal, with room to spare. */
export const TOKEN_ADMITTED_ADDRESS_SECONDS = 7 * 86_400;
/** Attempts per client id and admitted address per minute under which its right secret still passes: every guess's bound there. */
export const TOKEN_ADMITTED_ATTEMPTS_PER_MINUTE = 300;
/** Tokens issued per client id per minute, from every address together: counted only once the secret is proven. */
export const TOKENS_ISSUED_PER_MINUTE = 30;
export const RATE_WARNING_FRACTION = 0.8;
/** Bodies larger than this are refused before parsing. */
export const MAX_REQUEST_BODY_BYTES = 16 * 1024;
