import type { deliverySummary, PublicDestination } from '#lambdas/webhooks/destination-operations';
import type { eventDeliveries, showDelivery } from '#lambdas/webhooks/delivery-history';
import type { TimelineEntry } from '#lambdas/webhooks/delivery-policy';
import type { listDeadLetters } from '#lambdas/webhooks/dead-letter-operations';
import { allPages } from '#platform/admin-paging';
import type { publishDocument } from '#lambdas/webhooks/publish';
import type { RedriveResult, showDeadLetter } from '#lambdas/webhooks/dead-letters';
import { AdminInputError } from '#domain/inputs';
import { EVENT_ID } from '#lambdas/webhooks/events';
import { readJsonFile } from './read-json.js';
import { fields, show, table, type Column } from './format.js';
import { defineCommand, type Command } from './spec.js';

/** Beverage menus, webhook destinations and the webhook dead-letter queue. */

const destinationColumns: Column<PublicDestination>[] = [
  ['ID', (d) => d.destinationId],
  ['APP', (d) => d.clientId],
  ['NAME', (d) => d.name],
  ['HOST', (d) => d.hostname],
  ['LOCATIONS', (d) => (d.locationIds ? show(d.locationIds) : 'all')],
  ['HEALTH', (d) => d.health],
];

type DeadLetterPage = Awaited<ReturnType<typeof listDeadLetters>>;
type Shown = { destination: PublicDestination };

const secretNotice = 'The signing secret is shown only now: store it safely, it cannot be shown again.';

/** "all" → null (every location the application covers), else the list. */
const locationsOf = (list: string[] | undefined) => (list === undefined ? undefined : list.length === 1 && list[0] === 'all' ? null : list);

/** A delivery's timeline, oldest first: one line per attempt (its number), refusal or redrive. */
const timelineText = (timeline: readonly TimelineEntry[]) =>
  table(timeline, [
    ['#', (e) => (e.attempt === null ? '-' : String(e.attempt))],
    ['AT', (e) => e.at],
    ['STEP', (e) => e.kind],
    ['CODE', (e) => e.code ?? '-'],
    ['STATUS', (e) => e.status],
    ['DURATION', (e) => (e.ms === null ? '-' : `${e.ms} ms`)],
    ['NEXT ATTEMPT', (e) => e.next ?? '-'],
  ]);

type Story = Awaited<ReturnType<typeof showDelivery>>['delivery'];

/** One delivery: where it stands and went, then its timeline. */
const storyText = (d: Story) =>
  [
    fields(
      {
        id: d.deliveryId,
        event: `${d.eventType} ${d.eventId}`,
        destination: `${d.destinationName ?? '(removed)'} ${d.destinationId} (${d.destinationHost})`,
        app: d.clientId,
        location: d.locationId,
        status: d.status,
        dead_letter: d.deadLetterReason,
        attempts: d.attempts,
        next_attempt: d.nextAttemptAt ?? '-',
        last_error: d.errorCode,
        redrives: d.redrives,
        created: d.createdAt,
        completed: d.completedAt,
      },
      '',
    ),
    '',
    timelineText(d.timeline),
  ].join('\n');

const age = (seconds: number) =>
  seconds < 120 ? `${seconds}s` : seconds < 7200 ? `${Math.round(seconds / 60)}m` : `${Math.round(seconds / 3600)}h`;

export const BEVQ_COMMANDS: readonly Command[] = [
  defineCommand({
    name: 'menus publish',
    summary: [
      "Publish a rebuilt beverage menu for a location, in the shape of the API's data.menu (revision, counts,",
      'timestamps and sourceHealth.pos are computed; sourceHealth takes lastPosSyncAt and optional lastPosFailureAt).',
      'A new revision sends bevq.menu.updated to every covering destination; an unchanged rebuild changes nothing.',
    ].join('\n'),
    flags: { group: { value: 'G', required: true }, location: { value: 'L', required: true }, file: { value: 'F', required: true } },
    json: '{"revision": "...", "written": bool, "newRevision": bool, "eventId": "..."|null, "deliveries": N}',
    async run({ flags, api }) {
      const result: ReturnType<typeof publishDocument> = await api.call('publishMenu', {
        params: { groupId: flags.group, locationId: flags.location },
        body: await readJsonFile(flags.file),
      });
      return {
        json: result,
        text: result.newRevision
          ? `Published revision ${result.revision} for ${flags.group}/${flags.location}: event ${result.eventId}, ${result.deliveries} delivery(ies) queued.`
          : `Revision ${result.revision} unchanged for ${flags.group}/${flags.location}${result.written ? ' (source health updated)' : ''}; no event.`,
      };
    },
  }),
  defineCommand({
    name: 'menus show',
    summary: [
      "Print a location's published menu as a file `menus publish` takes (the computed fields it holds are ignored",
      'there): `menus show … > menu.json`, edit, publish. A failed POS reconciliation is not kept: add',
      'sourceHealth.lastPosFailureAt to report one.',
    ].join('\n'),
    flags: { group: { value: 'G', required: true }, location: { value: 'L', required: true } },
    json: 'the menu, as data.menu of GET /v1/{group}/{location}/bevq/menu',
    async run({ flags, api }) {
      const menu = await api.call('showMenu', { params: { groupId: flags.group, locationId: flags.location } });
      return { json: menu, text: JSON.stringify(menu, null, 2) };
    },
  }),
  defineCommand({
    name: 'destinations add',
    summary: [
      'Add a webhook destination for an active client_credentials application holding bevq:read. The URL must be',
      'public HTTPS (checked with DNS). Without --locations it covers every location the application covers, also',
      'later ones. Prints the signing secret once.',
    ].join('\n'),
    flags: {
      app: { value: 'CLIENT_ID', required: true },
      name: { value: 'N', required: true },
      url: { value: 'URL', required: true },
      locations: { value: 'L1,L2', kind: 'list' },
    },
    json: '{"destination": Destination, "signingSecret": "..."}',
    async run({ flags, api }) {
      const created: Shown & { signingSecret: string } = await api.call('addDestination', {
        body: { clientId: flags.app, name: flags.name, url: flags.url, locationIds: flags.locations ?? null },
      });
      return {
        json: created,
        text: [
          `Added destination ${created.destination.destinationId} (${created.destination.hostname}).`,
          fields({ destination_id: created.destination.destinationId, signing_secret: created.signingSecret }),
          secretNotice,
        ].join('\n'),
      };
    },
  }),
  defineCommand({
    name: 'destinations list',
    summary:
      'List webhook destinations, optionally of one application, or matching --search (an id, or part of a name or host). Never shows a secret.',
    flags: { app: { value: 'CLIENT_ID' }, search: { value: 'TEXT' } },
    json: '{"destinations": [Destination]}',
    async run({ flags, api }) {
      const pages = await allPages<{ destinations: PublicDestination[] }>((cursor) =>
        api.call('listDestinations', { query: { clientId: flags.app, q: flags.search, cursor } }),
      );
      const listed = { destinations: pages.flatMap((p) => p.destinations) };
      return { json: listed, text: table(listed.destinations, destinationColumns) };
    },
  }),
  defineCommand({
    name: 'destinations show',
    summary: 'Show a destination: health, safe hostname, last success and failure, the last three deliveries.',
    arg: 'ID',
    flags: {},
    json: '{"destination": Destination, "recentDeliveries": [Delivery]}',
    async run({ arg, api }) {
      const shown: Shown & { recentDeliveries: ReturnType<typeof deliverySummary>[] } = await api.call('showDestination', {
        params: { destinationId: arg },
      });
      const d = shown.destination;
      const text = [
        fields(
          {
            id: d.destinationId,
            app: d.clientId,
            name: d.name,
            host: d.hostname,
            locations: d.locationIds ?? 'all',
            health: d.health,
            consecutive_failures: d.consecutiveFailures,
            last_success: d.lastSuccessAt ?? '-',
            last_failure: d.lastFailureAt ?? '-',
          },
          '',
        ),
        '',
        table(shown.recentDeliveries, [
          ['DELIVERY', (r) => r.deliveryId],
          ['EVENT', (r) => r.eventType],
          ['LOCATION', (r) => r.locationId],
          ['STATUS', (r) => r.status],
          ['ATTEMPTS', (r) => String(r.attempts)],
          ['ERROR', (r) => r.errorCode ?? '-'],
          ['NEXT ATTEMPT', (r) => r.nextAttemptAt ?? '-'],
          ['UPDATED', (r) => r.updatedAt],
        ]),
      ].join('\n');
      return { json: shown, text };
    },
  }),
  defineCommand({
    name: 'destinations edit',
    summary: 'Change name, URL (blank keeps it) or locations ("all": every location the app covers). The secret is kept.',
    arg: 'ID',
    flags: { name: { value: 'N' }, url: { value: 'URL' }, locations: { value: 'L1,L2|all', kind: 'list' } },
    json: '{"destination": Destination}',
    async run({ arg, flags, api }) {
      const edited: Shown = await api.call('editDestination', {
        params: { destinationId: arg },
        body: { name: flags.name, url: flags.url, locationIds: locationsOf(flags.locations) },
      });
      return { json: edited, text: `Updated destination ${arg}.` };
    },
  }),
  defineCommand({
    name: 'destinations rotate-secret',
    summary: 'Replace the signing secret; the old one is invalid at once. Prints the new secret once.',
    arg: 'ID',
    flags: {},
    json: '{"destination": Destination, "signingSecret": "..."}',
    async run({ arg, api }) {
      const rotated: Shown & { signingSecret: string } = await api.call('rotateSecret', { params: { destinationId: arg }, body: {} });
      return {
        json: rotated,
        text: [`Rotated the secret of ${arg}.`, fields({ signing_secret: rotated.signingSecret }), secretNotice].join('\n'),
      };
    },
  }),
  defineCommand({
    name: 'destinations test',
    summary: 'Queue a signed customer_api.webhook.test for a covered location (same worker and retries); no data changes.',
    arg: 'ID',
    flags: { location: { value: 'L', required: true } },
    json: '{"eventId": "...", "deliveryId": "..."}',
    async run({ arg, flags, api }) {
      const queued: { eventId: string; deliveryId: string } = await api.call('sendTest', {
        params: { destinationId: arg },
        body: { locationId: flags.location },
      });
      return { json: queued, text: `Queued test event ${queued.eventId} (delivery ${queued.deliveryId}).` };
    },
  }),
  ...(['disable', 'enable'] as const).map((verb) =>
    defineCommand({
      name: `destinations ${verb}`,
      summary:
        verb === 'disable'
          ? 'Stop dispatching to a destination; queued attempts fail without a request.'
          : 'Dispatch to a destination again.',
      arg: 'ID',
      flags: {},
      json: '{"destination": Destination}',
      async run({ arg, api }) {
        const result: Shown = await api.call(verb === 'enable' ? 'enableDestination' : 'disableDestination', {
          params: { destinationId: arg },
          body: {},
        });
        return { json: result, text: `${verb === 'enable' ? 'Enabled' : 'Disabled'} destination ${arg}.` };
      },
    }),
  ),
  defineCommand({
    name: 'destinations remove',
    summary: 'Delete a destination with its subscription and secret; transmissions stop.',
    arg: 'ID',
    flags: {},
    json: '{"removed": "ID"}',
    async run({ arg, api }) {
      // The API answers 204, no body: the document is the CLI's own, as before.
      await api.call('removeDestination', { params: { destinationId: arg } });
      return { json: { removed: arg }, text: `Removed destination ${arg}.` };
    },
  }),
  defineCommand({
    name: 'dlq list',
    summary: [
      'List what is in the webhook DLQ and why (event, destination, location, attempts, last error code, age since dead-lettered),',
      "optionally one destination's, or matching --search (part of an id, a destination's name or the event type).",
    ].join('\n'),
    flags: { destination: { value: 'DESTINATION_ID' }, search: { value: 'TEXT' } },
    json: '{"deadLetters": [DeadLetter], "dlqMessages": N}',
    async run({ flags, api }) {
      const pages = await allPages<DeadLetterPage>((cursor) =>
        api.call('listDeadLetters', { query: { destinationId: flags.destination, q: flags.search, cursor } }),
      );
      const listed = { deadLetters: pages.flatMap((p) => p.deadLetters), dlqMessages: pages[0]!.dlqMessages };
      const text = [
        table(listed.deadLetters, [
          ['DELIVERY', (d) => d.deliveryId],
          ['REASON', (d) => d.reason],
          ['EVENT', (d) => (d.eventId ? `${d.eventType} ${d.eventId}` : '-')],
          ['DESTINATION', (d) => (d.destinationId ? `${d.destinationName ?? '(removed)'} ${d.destinationId}` : '-')],
          ['LOCATION', (d) => d.locationId ?? '-'],
          ['HOST', (d) => d.destinationHost ?? '-'],
          ['ATTEMPTS', (d) => String(d.attempts ?? '-')],
          ['LAST ERROR', (d) => d.lastErrorCode ?? '-'],
          ['AGE', (d) => age(d.ageSeconds)],
        ]),
        `${listed.deadLetters.length} dead letter(s); ${listed.dlqMessages ?? '?'} message(s) in the DLQ.`,
      ].join('\n');
      return { json: listed, text };
    },
  }),
  defineCommand({
    name: 'dlq show',
    summary: 'Show one dead-lettered delivery with its payload, backoff history and timeline of attempts and redrives.',
    arg: 'ID',
    flags: {},
    json: '{"deadLetter": DeadLetter}',
    async run({ arg, api }) {
      const shown: Awaited<ReturnType<typeof showDeadLetter>> = await api.call('showDeadLetter', { params: { deliveryId: arg } });
      const { timeline, payload, ...rest } = shown.deadLetter;
      return { json: shown, text: [fields({ ...rest, payload: JSON.stringify(payload) }, ''), '', timelineText(timeline)].join('\n') };
    },
  }),
  defineCommand({
    name: 'deliveries show',
    summary: [
      "Show a delivery's story: status, next attempt and the timeline of its attempts (start, code, duration, next",
      "attempt) and redrives; never a response body. Given an event id: that event's deliveries, one per destination.",
    ].join('\n'),
    arg: 'DELIVERY_ID|EVENT_ID',
    flags: {},
    json: '{"delivery": Delivery} | {"deliveries": [Delivery]}',
    async run({ arg, api }) {
      if (!arg.startsWith(EVENT_ID.prefix)) {
        const shown: Awaited<ReturnType<typeof showDelivery>> = await api.call('showDelivery', { params: { deliveryId: arg } });
        return { json: shown, text: storyText(shown.delivery) };
      }
      const pages = await allPages<Awaited<ReturnType<typeof eventDeliveries>>>((cursor) =>
        api.call('listEventDeliveries', { query: { eventId: arg, cursor } }),
      );
      const listed = { deliveries: pages.flatMap((p) => p.deliveries) };
      // One delivery (a Send test, or a single destination): its story; more: one line each.
      const text =
        listed.deliveries.length === 1
          ? storyText(listed.deliveries[0]!)
          : [
              table(listed.deliveries, [
                ['DELIVERY', (d) => d.deliveryId],
                ['DESTINATION', (d) => `${d.destinationName ?? '(removed)'} ${d.destinationId}`],
                ['STATUS', (d) => d.status],
                ['ATTEMPTS', (d) => String(d.attempts)],
                ['ERROR', (d) => d.errorCode ?? '-'],
                ['NEXT ATTEMPT', (d) => d.nextAttemptAt ?? '-'],
              ]),
              `${listed.deliveries.length} delivery(ies) of ${arg}; \`deliveries show DELIVERY_ID\` tells one's story.`,
            ].join('\n');
      return { json: listed, text };
    },
  }),
  defineCommand({
    name: 'dlq redrive',
    summary: [
      'Queue a dead-lettered delivery (or a selection: --ids, or --all, or all of one destination: --destination) again:',
      'attempts start over, the DLQ message is removed. --all and --destination go a page at a time (as the admin API',
      'does), one progress line per page on stderr; a selection names what it skipped and why.',
    ].join('\n'),
    arg: 'ID',
    argOptional: true,
    flags: { all: { value: '', kind: 'switch' }, destination: { value: 'DESTINATION_ID' }, ids: { value: 'ID1,ID2', kind: 'list' } },
    json: '{"redriven": ["ID"], "removedMessages": N, "pages": N, "skipped"?: [{"deliveryId", "reason"}]}',
    async run({ arg, flags, api, progress }) {
      const ways = [Boolean(arg), Boolean(flags.all), Boolean(flags.destination), Boolean(flags.ids)].filter(Boolean).length;
      if (ways !== 1) throw new AdminInputError('dlq redrive takes one delivery ID, --ids, --destination or --all');
      if (arg || flags.ids) {
        const result: RedriveResult = arg
          ? await api.call('redriveDeadLetter', { params: { deliveryId: arg }, body: {} })
          : await api.call('redriveAllDeadLetters', { body: { deliveryIds: flags.ids } });
        const skipped = result.skipped?.map((s) => `\n  skipped ${s.deliveryId}: ${s.reason}`).join('') ?? '';
        return {
          json: { ...result, pages: 1 },
          text: `Redrove ${result.redriven.length} delivery(ies); removed ${result.removedMessages} DLQ message(s).${skipped}`,
        };
      }
      const total = { redriven: [] as string[], removedMessages: 0, pages: 0 };
      const of = flags.destination ? { destinationId: flags.destination } : {};
      let page: RedriveResult | undefined;
      do {
        page = await api.call<RedriveResult>('redriveAllDeadLetters', {
          body: { ...of, ...(page?.nextCursor ? { cursor: page.nextCursor } : {}) },
        });
        total.redriven.push(...page.redriven);
        total.removedMessages += page.removedMessages;
        total.pages++;
        progress?.(
          `page ${total.pages}: ${page.redriven.length} queued again (${total.redriven.length} so far)${page.nextCursor ? '; going on' : ''}`,
        );
      } while (page.nextCursor);
      return {
        json: total,
        text: `Redrove ${total.redriven.length} delivery(ies) in ${total.pages} page(s); removed ${total.removedMessages} DLQ message(s).`,
      };
    },
  }),
];
