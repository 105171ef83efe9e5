import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type Guard, requestsOf } from './iam-guard.js';

/**
 * The local stand-in for SQS's endpoint as a producer's role reaches it in AWS: the stop-command queue's consumer
 * actions of SQS's JSON protocol (`X-Amz-Target: AmazonSQS.<Action>`, the request's JSON as SQS takes it), on the
 * gateway's port below LOCAL_SQS_PATH, with a producer's key (`Authorization: Bearer …`) held to the statements of
 * its policy in the synthesized stack, as the producer routes are. The engines answer the runtime alone
 * (local/engine-door.ts), so a device platform of one's own (a shell, `curl`) receives its commands here.
 */
export const LOCAL_SQS_PATH = '/local/sqs';

/** The actions a consumer takes (STOP_COMMAND_CONSUMER_ACTIONS in lib/constructs/producer-policies.ts); no other. */
const ACTIONS = {
  ReceiveMessage: ReceiveMessageCommand,
  DeleteMessage: DeleteMessageCommand,
  ChangeMessageVisibility: ChangeMessageVisibilityCommand,
  GetQueueAttributes: GetQueueAttributesCommand,
} as const;

export type LocalSqsAnswer = { status: number; body: Record<string, unknown> };

/** One request: its X-Amz-Target, its body, and the guard of the producer whose key it carries (null: IAM off). */
export function localSqs(sqs: SQSClient, region: string) {
  return async (target: string | undefined, body: string, producer: string, guard: Guard | null): Promise<LocalSqsAnswer> => {
    const action = /^AmazonSQS\.(\w+)$/.exec(target ?? '')?.[1] ?? '';
    const Command = (ACTIONS as unknown as Record<string, new (input: never) => Parameters<SQSClient['send']>[0]>)[action];
    if (!Command) return refusal(400, 'InvalidAction', `X-Amz-Target must be AmazonSQS.{${Object.keys(ACTIONS).join(',')}}`);
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(body) as Record<string, unknown>;
      if (typeof input !== 'object' || input === null) throw new Error('not an object');
    } catch {
      return refusal(400, 'SerializationException', 'The body must be a JSON object');
    }
    for (const request of requestsOf('sqs', `${action}Command`, input, { region })) {
      if (guard && guard.allows(request) !== 'allowed')
        return refusal(403, 'AccessDenied', `${producer} is not authorized to perform: ${request.action} on resource: ${request.resource}`);
    }
    try {
      const { $metadata: _metadata, ...output } = (await sqs.send(new Command(input as never))) as { $metadata: unknown };
      return { status: 200, body: output };
    } catch (err) {
      const e = err as Error & { $metadata?: { httpStatusCode?: number } };
      return refusal(e.$metadata?.httpStatusCode ?? 400, e.name, e.message);
    }
  };
}

const refusal = (status: number, type: string, message: string): LocalSqsAnswer => ({ status, body: { __type: type, message } });
