import { createHash, timingSafeEqual } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ApiError } from '#contract/errors';
import { awsJsonCaller } from './aws-json-call.js';

/**
 * The values the edge's `x-origin-verify` header may carry (lib/constructs/edge.ts, docs/decisions/edge.md): in a
 * stage, the Secrets Manager secret's current and previous versions, read with one SigV4-signed request each;
 * locally, the one value `npm start` was given.
 */
export type OriginSecrets = {
  /** Whether `sent` is an accepted value: compared as SHA-256 digests with timingSafeEqual, every value every time. */
  accepts(sent: string): Promise<boolean>;
};

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Whether `sent` matches one of `digests`, each compared, so the time taken tells nothing of which or how much. */
function matchesAny(sent: string, digests: Buffer[]): boolean {
  const mine = digest(sent);
  return digests.reduce((found, known) => timingSafeEqual(mine, known) || found, false);
}

/** One value, never re-read: the local runtime playing a stage behind its edge (ORIGIN_SECRET). */
export function fixedOriginSecret(value: string): OriginSecrets {
  const digests = [digest(value)];
  return { accepts: async (sent) => matchesAny(sent, digests) };
}

/**
 * A mismatch re-reads the secret at most this often: a rotation is seen within seconds, and requests with a wrong
 * value (someone calling the execute-api URL) cost at most one read per instance in this time.
 */
export const ORIGIN_SECRET_REREAD_MS = 5_000;

/** The version stages accepted: the current value, and the one a rotation replaced while CloudFront still sends it. */
const STAGES = ['AWSCURRENT', 'AWSPREVIOUS'] as const;

export type SecretsManagerOptions = {
  /** The secret's ARN (ORIGIN_SECRET_ARN). */
  secretId: string;
  /** The function's DynamoDB client: its credential chain, region and hash sign the request (nothing new to bundle but the signer). */
  client: DynamoDBClient;
  /** Secrets Manager's URL; default its public regional endpoint. Tests point it at a local stand-in. */
  endpoint?: string;
  now?: () => number;
};

/**
 * The secret's current and previous values from Secrets Manager (GetSecretValue, its JSON protocol), read when
 * built (the cold start), cached, re-read on a mismatch at most every ORIGIN_SECRET_REREAD_MS. A value is only
 * ever held as its digest. With nothing read yet (Secrets Manager unreachable), a request is answered 503.
 */
export function secretsManagerOriginSecret(options: SecretsManagerOptions): OriginSecrets {
  const now = options.now ?? Date.now;
  let digests: Buffer[] | null = null;
  let readAt = -Infinity;
  let reading: Promise<void> | null = null;

  const read = () => {
    readAt = now();
    reading ??= readVersions(options)
      .then((values) => {
        digests = values.map(digest);
      })
      // A failed read keeps what was read before; with nothing, accepts() answers 503 until a read succeeds.
      .catch(() => {})
      .finally(() => {
        reading = null;
      });
    return reading;
  };
  void read();

  return {
    async accepts(sent) {
      if (reading) await reading;
      if (digests && matchesAny(sent, digests)) return true;
      if (now() - readAt >= ORIGIN_SECRET_REREAD_MS) await read();
      if (!digests) throw new ApiError('service_unavailable', undefined, { 'Retry-After': String(ORIGIN_SECRET_REREAD_MS / 1000) });
      return matchesAny(sent, digests);
    },
  };
}

/** The current value and, once a rotation has made one, the previous. */
async function readVersions(options: SecretsManagerOptions): Promise<string[]> {
  const region = await options.client.config.region();
  const url = new URL(options.endpoint ?? `https://secretsmanager.${region}.amazonaws.com/`);
  const call = awsJsonCaller(options.client, 'secretsmanager', '1.1');
  const values = await Promise.all(STAGES.map((stage) => getSecretValue(call, url, options.secretId, stage)));
  return values.filter((value): value is string => value !== null);
}

/** One GetSecretValue; null when the secret has no version in that stage (no rotation yet: no AWSPREVIOUS). */
async function getSecretValue(call: ReturnType<typeof awsJsonCaller>, url: URL, secretId: string, stage: string): Promise<string | null> {
  const answer = await call(url, 'secretsmanager.GetSecretValue', JSON.stringify({ SecretId: secretId, VersionStage: stage }));
  const { SecretString, __type } = answer.body;
  if (answer.ok && typeof SecretString === 'string') return SecretString;
  if (stage !== 'AWSCURRENT' && __type?.endsWith('ResourceNotFoundException')) return null;
  throw new Error(`GetSecretValue ${stage}: ${answer.status} ${__type ?? ''}`);
}
