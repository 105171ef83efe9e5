import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { publishMenu, type PublishRequest } from '../admin/menus.js';
import type { Deps } from '../shared/deps.js';
import { sweepPendingEvents } from './dispatch.js';
import { processRecord } from './deliver.js';

/** The three non-HTTP functions of the webhook pipeline, as factories over deps (Lambda and local runtime alike). */

/** SQS event source (reportBatchItemFailures): each record is one attempt; retries come back as batch item failures. */
export function createDeliverer(deps: Deps) {
  const processor = new BatchProcessor(EventType.SQS);
  return (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    processPartialResponse(event, (record: SQSRecord) => processRecord(deps, record), processor, {
      context,
      throwOnFullBatchFailure: false,
    });
}

/** EventBridge schedule: re-dispatches menu events left pending by a crash or a failed enqueue. */
export function createSweeper(deps: Deps) {
  return async (): Promise<{ dispatched: number }> => ({ dispatched: await sweepPendingEvents(deps) });
}

/** The ingest path the menu platform invokes with a rebuilt menu: write, then fan out. */
export function createDispatcher(deps: Deps) {
  return async (event: PublishRequest) => {
    const result = await publishMenu(deps, event);
    return { revision: result.menu.revision, newRevision: result.newRevision, eventId: result.eventId };
  };
}
