import { SignatureV4 } from '@smithy/signature-v4';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** What an AWS JSON-protocol API answered: its status and its JSON body ({} when it sent none). */
export type AwsJsonAnswer = { ok: boolean; status: number; body: Record<string, unknown> & { __type?: string } };

/**
 * Calls of one AWS JSON-protocol API (SQS, Secrets Manager) without its client: each one POST signed with SigV4
 * from the function's DynamoDB client's credential chain, region and hash, so a /v1 bundle carries nothing new but
 * the signer. `protocol` is the API's JSON version (`application/x-amz-json-<protocol>`).
 */
export function awsJsonCaller(client: DynamoDBClient, service: string, protocol: '1.0' | '1.1') {
  let signer: Promise<SignatureV4> | null = null;
  const signerOf = async () => {
    const { credentials, sha256 } = client.config;
    return new SignatureV4({ service, region: await client.config.region(), credentials, sha256 });
  };
  return async (url: URL, target: string, body: string): Promise<AwsJsonAnswer> => {
    const signed = await (
      await (signer ??= signerOf())
    ).sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: {},
      headers: { host: url.host, 'content-type': `application/x-amz-json-${protocol}`, 'x-amz-target': target },
      body,
    });
    const response = await fetch(url, { method: 'POST', headers: signed.headers, body, signal: AbortSignal.timeout(3_000) });
    return { ok: response.ok, status: response.status, body: (await response.json().catch(() => ({}))) as AwsJsonAnswer['body'] };
  };
}
