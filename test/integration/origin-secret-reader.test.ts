import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '#contract/errors';
import { ORIGIN_SECRET_REREAD_MS, secretsManagerOriginSecret } from '#platform/origin-secret';

/**
 * The stage's origin-secret reader (lambdas/platform/origin-secret.ts) against a local HTTPS server answering
 * GetSecretValue as Secrets Manager does (its JSON protocol, its error for a missing version stage), which checks
 * every request's SigV4 signature for service secretsmanager before answering.
 */
const REGION = 'eu-west-1';
const CREDENTIALS = { accessKeyId: 'AKIDORIGINTEST', secretAccessKey: 'origin-test-secret-access-key' };
const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:111111111111:secret:OriginSecret-AbCdEf`;
const [OLD, NEW] = ['OldOriginValue0aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bD1fH3k', 'NewOriginValue0aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bD1fH3k'];

/** The secret's versions by stage, what the stand-in was asked, and whether it answers at all. */
const secret = { stages: {} as Record<string, string>, reads: [] as string[], down: false, refusals: [] as string[] };
let server: Server;
let endpoint = '';

/** Whether the request's Authorization is a valid SigV4 signature of exactly this request for secretsmanager in REGION. */
async function signedForSecretsManager(method: string, host: string, headers: Record<string, string>, body: string): Promise<boolean> {
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=[0-9a-f]{64}$/.exec(
      headers.authorization ?? '',
    );
  if (!match || match[1] !== CREDENTIALS.accessKeyId || match[3] !== REGION || match[4] !== 'secretsmanager') return false;
  const signedNames = match[5]!.split(';');
  if (!['host', 'x-amz-date', 'x-amz-target'].every((name) => signedNames.includes(name))) return false;
  const signer = new SignatureV4({ service: 'secretsmanager', region: REGION, credentials: CREDENTIALS, sha256: DynamoDBClientSha256 });
  const amzDate = headers['x-amz-date']!;
  const signingDate = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13)}`,
  );
  const resigned = await signer.sign(
    {
      method,
      protocol: 'https:',
      hostname: host.split(':')[0]!,
      path: '/',
      query: {},
      headers: Object.fromEntries(signedNames.map((name) => [name, headers[name]!])),
      body,
    },
    { signingDate },
  );
  return resigned.headers.authorization === headers.authorization;
}
const DynamoDBClientSha256 = new DynamoDBClient({ region: REGION, credentials: CREDENTIALS }).config.sha256;

beforeAll(async () => {
  const tls = { key: readFileSync('test/fixtures/tls/server-key.pem'), cert: readFileSync('test/fixtures/tls/server.pem') };
  server = createServer(tls, (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      void (async () => {
        const answer = (status: number, json: unknown) => {
          res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(json));
        };
        if (secret.down) return answer(500, { __type: 'InternalServiceError' });
        const headers = req.headers as Record<string, string>;
        if (req.method !== 'POST' || headers['x-amz-target'] !== 'secretsmanager.GetSecretValue')
          return answer(400, { __type: 'UnknownOperationException' });
        if (!(await signedForSecretsManager(req.method, headers.host!, headers, body))) {
          secret.refusals.push(headers.authorization ?? '');
          return answer(403, { __type: 'InvalidSignatureException' });
        }
        const { SecretId, VersionStage } = JSON.parse(body) as { SecretId: string; VersionStage: string };
        secret.reads.push(VersionStage);
        const value = SecretId === SECRET_ARN ? secret.stages[VersionStage] : undefined;
        if (value === undefined)
          return answer(400, {
            __type: 'ResourceNotFoundException',
            message: `Secrets Manager can't find the specified secret value for staging label: ${VersionStage}`,
          });
        answer(200, { ARN: SECRET_ARN, Name: 'OriginSecret', SecretString: value, VersionStages: [VersionStage] });
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  Object.assign(secret, { stages: { AWSCURRENT: OLD }, reads: [], down: false, refusals: [] });
});

/** A function's cold start: its own reader, on a clock the test moves. */
function coldStart(clock = { ms: 1_000_000 }) {
  const client = new DynamoDBClient({ region: REGION, credentials: CREDENTIALS });
  return { clock, origin: secretsManagerOriginSecret({ secretId: SECRET_ARN, client, endpoint, now: () => clock.ms }) };
}

describe('the origin secret read from Secrets Manager (platform/origin-secret.ts)', () => {
  it('reads the current and previous versions once at cold start, signed for secretsmanager, and caches them', async () => {
    const { origin } = coldStart();
    expect(await origin.accepts(OLD)).toBe(true);
    expect(await origin.accepts(OLD)).toBe(true);
    expect(secret.refusals).toEqual([]);
    // No rotation yet: AWSPREVIOUS does not exist, which is not an error.
    expect(secret.reads.sort()).toEqual(['AWSCURRENT', 'AWSPREVIOUS']);
  });

  it(`re-reads on a mismatch at most once every ${ORIGIN_SECRET_REREAD_MS / 1000} s`, async () => {
    const { origin, clock } = coldStart();
    expect(await origin.accepts(OLD)).toBe(true);
    secret.reads = [];
    clock.ms += ORIGIN_SECRET_REREAD_MS;
    for (let i = 0; i < 5; i++) expect(await origin.accepts(`guess-${i}`)).toBe(false);
    expect(secret.reads).toHaveLength(2);
    clock.ms += ORIGIN_SECRET_REREAD_MS - 1;
    expect(await origin.accepts('guess')).toBe(false);
    expect(secret.reads).toHaveLength(2);
    clock.ms += 1;
    expect(await origin.accepts('guess')).toBe(false);
    expect(secret.reads).toHaveLength(4);
  });

  it('loses no request to a rotation: the previous value still passes, the new one after a re-read', async () => {
    const { origin, clock } = coldStart();
    expect(await origin.accepts(OLD)).toBe(true);
    // put-secret-value: the new value becomes AWSCURRENT, the old one AWSPREVIOUS.
    secret.stages = { AWSCURRENT: NEW, AWSPREVIOUS: OLD };
    clock.ms += ORIGIN_SECRET_REREAD_MS;
    // CloudFront still sends the old value for a while: a warm instance passes it from its cache.
    secret.reads = [];
    expect(await origin.accepts(OLD)).toBe(true);
    expect(secret.reads).toEqual([]);
    // CloudFront's new configuration arrives: a mismatch, a re-read, then both values pass.
    expect(await origin.accepts(NEW)).toBe(true);
    expect(secret.reads.sort()).toEqual(['AWSCURRENT', 'AWSPREVIOUS']);
    expect(await origin.accepts(OLD)).toBe(true);
    // An instance started after the rotation accepts both at once.
    const late = coldStart().origin;
    expect([await late.accepts(OLD), await late.accepts(NEW), await late.accepts('guess')]).toEqual([true, true, false]);
  });

  it('answers 503 while nothing could be read, and recovers once Secrets Manager answers', async () => {
    secret.down = true;
    const { origin, clock } = coldStart();
    const refused = await origin.accepts(OLD).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: 'service_unavailable', status: 503 });
    secret.down = false;
    clock.ms += ORIGIN_SECRET_REREAD_MS;
    expect(await origin.accepts(OLD)).toBe(true);
  });

  it('keeps what it read when a re-read fails', async () => {
    const { origin, clock } = coldStart();
    expect(await origin.accepts(OLD)).toBe(true);
    secret.down = true;
    clock.ms += ORIGIN_SECRET_REREAD_MS;
    expect(await origin.accepts('guess')).toBe(false);
    expect(await origin.accepts(OLD)).toBe(true);
  });
});
