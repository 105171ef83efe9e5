import middy from '@middy/core';
import type { MessagingDeps } from '#platform/deps';
import { count, observability } from '#platform/observability';
import { publishMenu, type PublishRequest } from './menu-publish.js';

/** The ingest path the menu platform invokes with a rebuilt menu: write, then fan out. */
export function createDispatcher(deps: MessagingDeps) {
  return middy<PublishRequest, { revision: string; newRevision: boolean; eventId: string | null }>()
    .use(observability(deps))
    .handler(async (event) => {
      const result = await publishMenu(deps, event);
      count(deps, 'DeliveriesQueued', result.deliveries);
      return { revision: result.menu.revision, newRevision: result.newRevision, eventId: result.eventId };
    });
}
