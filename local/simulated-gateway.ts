import { DeleteMessageCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { parseStopCommandMessage } from '#lambdas/matriq/stop-queue';
import type { Clock } from '#platform/deps';
import type { Logger } from '#platform/observability';

/**
 * The device platform and its gateways, played locally (`npm start`; a test turns it on): it consumes the
 * stop-command queue with the device platform's own SQS client (held to its policy, as its role is in AWS), and after
 * a short delay reports each command's result through the producer API with the device platform's key, as the real
 * one does (docs/operations.md, "Producers"). A command past its expiry is discarded unreported, as a gateway must;
 * the same command again is reported again (the service answers `duplicate`). A message is deleted once its report
 * is answered 200 or refused for good (400, 404); otherwise it comes back after its visibility timeout.
 */
export type SimulatedGatewayOptions = {
  /** The device platform's SQS client. */
  sqs: SQSClient;
  queueUrl: string;
  /** The gateway's base URL (the runtime's). */
  apiUrl: string;
  /** The device-platform producer key. */
  key: string;
  clock: Clock;
  logger: Logger;
  /** Between receiving a command and reporting it: the gateway applying the stop. */
  delayMs?: number;
  /** What the gateway reports. */
  result?: 'applied' | 'failed';
  /** Told of each stop command as it is received (a benchmark times POST → gateway with it). */
  onReceived?: (commandId: string) => void;
};

export type SimulatedGateway = {
  /** Commands reported (by id, in order, repeats included) and discarded as expired. */
  readonly reported: readonly string[];
  readonly discarded: readonly string[];
  stop(): Promise<void>;
};

/** Short: a stop takes a gateway a moment; the customer sees `queued`, then the result, within a second or so. */
const SIMULATED_GATEWAY_DELAY_MS = 300;

export function startSimulatedGateway(options: SimulatedGatewayOptions): SimulatedGateway {
  const { sqs, queueUrl, logger, clock } = options;
  const reported: string[] = [];
  const discarded: string[] = [];
  const handling = new Set<Promise<void>>();
  let stopped = false;
  let abort = new AbortController();

  const remove = (message: Message) =>
    sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! })).catch((err: unknown) => {
      logger.warn('simulated gateway: delete failed; the message comes back', { error: (err as Error).name });
    });

  const handle = async (message: Message) => {
    const command = parseStopCommandMessage(message.Body ?? '');
    if (!command) {
      logger.warn('simulated gateway: not a stop command; dropped', { messageId: message.MessageId });
      return void (await remove(message));
    }
    options.onReceived?.(command.commandId);
    if (Date.parse(command.expiresAt) <= clock.now()) {
      logger.info('simulated gateway: stop command expired; discarded', { commandId: command.commandId });
      discarded.push(command.commandId);
      return void (await remove(message));
    }
    await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? SIMULATED_GATEWAY_DELAY_MS));
    if (stopped) return;
    const response = await fetch(`${options.apiUrl}/producer/v1/matriq/commands/${command.commandId}/result`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${options.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ sourceTime: new Date(clock.now()).toISOString(), data: { status: options.result ?? 'applied' } }),
    });
    const answer = await response.text();
    logger.info('simulated gateway: stop command reported', { commandId: command.commandId, status: response.status, answer });
    if (response.ok) reported.push(command.commandId);
    if (response.ok || response.status === 400 || response.status === 404) await remove(message);
  };

  const loop = (async () => {
    while (!stopped) {
      let messages: Message[] = [];
      try {
        ({ Messages: messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 20 }),
          { abortSignal: abort.signal },
        ));
      } catch (err) {
        if (stopped) break;
        logger.error('simulated gateway: receive failed', { error: (err as Error).message });
        abort = new AbortController();
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      for (const message of messages) {
        const running = handle(message).catch((err: unknown) => {
          logger.error('simulated gateway: report failed; the message comes back', { error: (err as Error).message });
        });
        handling.add(running);
        void running.finally(() => handling.delete(running));
      }
    }
  })();

  return {
    reported,
    discarded,
    async stop() {
      stopped = true;
      abort.abort();
      await loop;
      await Promise.allSettled([...handling]);
    },
  };
}
