/** Deployment settings read from the environment once; every handler gets them through its deps. */
export type Config = {
  tableName: string;
  webhookQueueUrl: string;
  webhookDlqUrl: string;
  /** Fixed public base URL (custom domain); when empty, absolute URLs follow the URL the client called. */
  publicBaseUrl: string;
  /** Sender of owner e-mails (rate-limit alerts, destination changes). */
  mailFrom: string;
  stage: string;
};

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    tableName: env.TABLE_NAME ?? 'customer-api',
    webhookQueueUrl: env.WEBHOOK_QUEUE_URL ?? '',
    webhookDlqUrl: env.WEBHOOK_DLQ_URL ?? '',
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? '').replace(/\/+$/, ''),
    mailFrom: env.MAIL_FROM ?? 'no-reply@customer-api.invalid',
    stage: env.STAGE ?? 'local',
  };
}

/** Fixed lifetimes and limits of the contract (5.1, 8). */
export const ACCESS_TOKEN_TTL_SECONDS = 86_400;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
/** Token-endpoint attempts per client id per minute; guards secret guessing. */
export const TOKEN_REQUESTS_PER_MINUTE = 30;
export const RATE_WARNING_FRACTION = 0.8;
/** Bodies larger than this are refused before parsing. */
export const MAX_REQUEST_BODY_BYTES = 16 * 1024;
