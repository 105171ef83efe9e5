import { SignatureV4 } from '@smithy/signature-v4';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SendingQueue } from './deps.js';

/**
 * SendMessage to one queue without the SQS client: one SigV4-signed request of SQS's JSON protocol to SQS's endpoint
 * (the queue URL's origin in AWS, `https://sqs.<region>.amazonaws.com`; `endpoint` where it is not one), signed with the function's DynamoDB client's credential chain, region and hash (as the origin-secret
 * reader reads Secrets Manager), so a /v1 bundle carries nothing new but the signer. A transient answer (5xx, a
 * throttle) is tried once more; anything else throws, and the caller's outbox sends the message later.
 */
export function signedSendingQueue(client: DynamoDBClient, queueUrl: string, endpoint?: string): SendingQueue {
  let signer: Promise<SignatureV4> | null = null;
  const signerOf = async () => {
    const { credentials, sha256 } = client.config;
    return new SignatureV4({ service: 'sqs', region: await client.config.region(), credentials, sha256 });
  };
  const attempt = async (body: string) => {
    // Read when sending: a function built without the setting (a test, a tool) never sends.
    const url = new URL('/', endpoint ?? queueUrl);
    const signed = await (
      await (signer ??= signerOf())
    ).sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: {},
      headers: { host: url.host, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessage' },
      body,
    });
    const response = await fetch(url, { method: 'POST', headers: signed.headers, body, signal: AbortSignal.timeout(3_000) });
    const answer = (await response.json().catch(() => ({}))) as { MessageId?: string; __type?: string };
    return { ok: response.ok && typeof answer.MessageId === 'string', status: response.status, type: answer.__type ?? '' };
  };
  return {
    async send(messageBody) {
      const body = JSON.stringify({ QueueUrl: queueUrl, MessageBody: messageBody });
      let result = await attempt(body);
      if (!result.ok && (result.status >= 500 || /Throttl|RequestThrottled/.test(result.type))) result = await attempt(body);
      if (!result.ok) throw new Error(`SendMessage: ${result.status} ${result.type}`);
    },
  };
}
