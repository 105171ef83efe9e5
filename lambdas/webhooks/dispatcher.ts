import type { Context, SQSEvent } from 'aws-lambda';
import { defaultMessagingDeps } from './deps.js';
import { createFanOutConsumer } from './fan-out.js';
import { createDispatcher, type PublishRequest } from './publish.js';

const deps = defaultMessagingDeps();
const publish = createDispatcher(deps);
const wakeUps = createFanOutConsumer(deps);

/** Invoked with a rebuilt menu (the ingest path), or by the fan-out queue's event source with a batch of wake-ups. */
export const handler = (event: PublishRequest | SQSEvent, context: Context) =>
  'Records' in event ? wakeUps(event, context) : publish(event, context);
