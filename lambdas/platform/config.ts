import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPENAPI_ARTEFACT } from '#contract/openapi-artefact';
import { SPORTS_LOGO_PACKAGE_DIR } from '#contract/assets';

/** Deployment settings read from the environment once; every handler gets them through its deps. */
export type Config = {
  tableName: string;
  webhookQueueUrl: string;
  webhookDlqUrl: string;
  /** The fan-out queue: a publish's later pages and a resumed destination's releases, for the dispatcher. */
  fanOutQueueUrl: string;
  /** Fixed public base URL (custom domain); when empty, absolute URLs follow the URL the client called. */
  publicBaseUrl: string;
  /** Sender of owner e-mails (rate-limit alerts, destination changes). */
  mailFrom: string;
  /** The SES configuration set every owner mail names (MAIL_CONFIGURATION_SET, set by the stack): its event destination reports bounces and complaints; empty: none (local). */
  mailConfigurationSet: string;
  stage: string;
  /**
   * Requests a second every route's API Gateway throttle lets through at least, for all clients together
   * (STAGE_RATE_LIMIT: the stage's per-route floor, set by the stack from STAGE_TABLE in lib/stages.ts); no
   * application may be given a per-minute limit above 60 times it.
   */
  stageRateLimit: number;
  /**
   * The edge's origin secret in a stage (ORIGIN_SECRET_ARN, set by the stack on the `/v1` and token functions when
   * the stage has an edge): the Secrets Manager secret whose current and previous values the HTTP shell accepts in
   * `x-origin-verify` (platform/origin-secret.ts), read at cold start; the value itself is never in the environment.
   */
  originSecretArn: string;
  /**
   * Local runtime only: one origin secret's value (ORIGIN_SECRET), so `npm start` plays a stage behind its edge.
   * Set, or with originSecretArn, the HTTP shell refuses `/v1` and token requests without it with 403
   * (platform/http.ts, originOf); neither, nothing is checked (dev, staging, `npm start` by default).
   */
  originSecret: string;
  /** When the legacy routes were or will be deprecated, and removed (ISO 8601 instants; null: no header is sent). */
  legacyDeprecatedAt: string | null;
  legacySunsetAt: string | null;
  /** Local runtime only: lets webhooks reach 127.0.0.0/8 and ::1 (test receivers). Off unless WEBHOOK_ALLOW_LOOPBACK=1. */
  webhookAllowLoopback: boolean;
  /**
   * Local runtime only: the `npm run listen` inbox it reserved at start (origin `https://127.0.0.1:PORT`), the one
   * loopback destination it accepts and delivers to, and the CA its deliverer trusts for that origin alone. Never read
   * from the environment, so no stage can be given one; null everywhere but the local runtime.
   */
  webhookListenInbox: { origin: string; ca: string } | null;
  /** Multiplies every wait of the webhook delivery policy (attempt timeout, backoff, visibility); 1 in AWS, smaller locally so tests run in seconds. */
  webhookTimeScale: number;
  /** The signing access-token key version's age, in days, at which the sweeper adds a new one (TOKEN_KEY_ROTATION_DAYS; 0: by hand only). */
  tokenKeyRotationDays: number;
  /** HMAC key of review page tokens (PAGE_TOKEN_KEY); empty → a random key created once and kept in the table. */
  pageTokenKey: string;
  /**
   * The folder of the sports logos (SPORTS_LOGO_DIR, relative to the bundle's folder): the stack ships it beside the
   * assets bundle, the local runtime passes the repository folder's absolute path.
   */
  sportsLogoDir: string;
  /**
   * The OpenAPI artefact the discovery function serves (OPENAPI_DOCUMENT_PATH, relative to the bundle's folder):
   * the stack ships it beside the bundle, the local runtime writes one at start and passes its absolute path.
   */
  openApiDocumentPath: string;
};

/** The folder of the running bundle (in Lambda, the asset's root); relative paths in the environment start here. */
const BUNDLE_DIR = dirname(fileURLToPath(import.meta.url));

/** The environment variable each setting is read from: the stack sets them by these names (lib/), nothing spells them again. */
export const ENV = {
  tableName: 'TABLE_NAME',
  webhookQueueUrl: 'WEBHOOK_QUEUE_URL',
  webhookDlqUrl: 'WEBHOOK_DLQ_URL',
  fanOutQueueUrl: 'WEBHOOK_FANOUT_QUEUE_URL',
  publicBaseUrl: 'PUBLIC_BASE_URL',
  mailFrom: 'MAIL_FROM',
  mailConfigurationSet: 'MAIL_CONFIGURATION_SET',
  stage: 'STAGE',
  stageRateLimit: 'STAGE_RATE_LIMIT',
  originSecretArn: 'ORIGIN_SECRET_ARN',
  originSecret: 'ORIGIN_SECRET',
  legacyDeprecatedAt: 'LEGACY_DEPRECATED_AT',
  legacySunsetAt: 'LEGACY_SUNSET_AT',
  webhookAllowLoopback: 'WEBHOOK_ALLOW_LOOPBACK',
  webhookTimeScale: 'WEBHOOK_TIME_SCALE',
  tokenKeyRotationDays: 'TOKEN_KEY_ROTATION_DAYS',
  pageTokenKey: 'PAGE_TOKEN_KEY',
  sportsLogoDir: 'SPORTS_LOGO_DIR',
  openApiDocumentPath: 'OPENAPI_DOCUMENT_PATH',
} as const satisfies Partial<Record<keyof Config, string>>;

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    tableName: env[ENV.tableName] ?? 'customer-api',
    webhookQueueUrl: env[ENV.webhookQueueUrl] ?? '',
    webhookDlqUrl: env[ENV.webhookDlqUrl] ?? '',
    fanOutQueueUrl: env[ENV.fanOutQueueUrl] ?? '',
    publicBaseUrl: (env[ENV.publicBaseUrl] ?? '').replace(/\/+$/, ''),
    mailFrom: env[ENV.mailFrom] ?? 'no-reply@customer-api.invalid',
    mailConfigurationSet: env[ENV.mailConfigurationSet] ?? '',
    stage: env[ENV.stage] ?? 'local',
    // Unset outside a stage (tests, tools): no stage throttle, so only the data design bounds a limit.
    stageRateLimit: env[ENV.stageRateLimit] ? Number(env[ENV.stageRateLimit]) : Infinity,
    originSecretArn: env[ENV.originSecretArn] ?? '',
    originSecret: env[ENV.originSecret] ?? '',
    legacyDeprecatedAt: env[ENV.legacyDeprecatedAt] || null,
    legacySunsetAt: env[ENV.legacySunsetAt] || null,
    webhookAllowLoopback: env[ENV.webhookAllowLoopback] === '1',
    webhookListenInbox: null,
    webhookTimeScale: env[ENV.webhookTimeScale] ? Number(env[ENV.webhookTimeScale]) : 1,
    tokenKeyRotationDays: Number(env[ENV.tokenKeyRotationDays] ?? 0) || 0,
    pageTokenKey: env[ENV.pageTokenKey] ?? '',
    sportsLogoDir: resolve(BUNDLE_DIR, env[ENV.sportsLogoDir] || SPORTS_LOGO_PACKAGE_DIR),
    openApiDocumentPath: resolve(BUNDLE_DIR, env[ENV.openApiDocumentPath] || OPENAPI_ARTEFACT),
  };
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
