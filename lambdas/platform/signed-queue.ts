import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { awsJsonCaller } from './aws-json-call.js';
import type { SendingQueue } from './deps.js';

/**
 * SendMessage to one queue without the SQS client (awsJsonCaller): to SQS's endpoint (the queue URL's origin in AWS,
 * `https://sqs.<region>.amazonaws.com`; `endpoint` where it is not one). A transient answer (5xx, a throttle) is
 * tried once more; anything else throws, and the caller's outbox sends the message later.
 */
export function signedSendingQueue(client: DynamoDBClient, queueUrl: string, endpoint?: string): SendingQueue {
  const call = awsJsonCaller(client, 'sqs', '1.0');
  const attempt = async (body: string) => {
    // Read when sending: a function built without the setting (a test, a tool) never sends.
    const answer = await call(new URL('/', endpoint ?? queueUrl), 'AmazonSQS.SendMessage', body);
    return { ok: answer.ok && typeof answer.body.MessageId === 'string', status: answer.status, type: answer.body.__type ?? '' };
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
