import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { matriqKeys, matriqRepo, type MatriqState, type NewStopCommand, type StopCommand } from '#data/matriq';
import { locationUrl, sportsLogoUrl } from '#contract/urls';
import { ok, type LocationRequest, type Operations, type ReadHints, v1Function } from '#platform/api-handler';
import { sha256Hex } from '#domain/crypto';
import { buildDeps, type Deps } from '#platform/deps';
import { signedSendingQueue } from '#platform/signed-queue';
import { ApiError } from '#contract/errors';
import { idempotencyKeyOf, parseJsonBody } from '#platform/input';
import { MATRIQ_REFRESH, MATRIQ_RESOURCES } from '#contract/refresh';
import { emergencyStopBody } from '#contract/schemas/requests';
import { businessDateAt, locationRefOf, readSportsDay, sportsDayReads, todayIn } from '#domain/sports-day';
import { sportsKeys, sportsRepo } from '#data/sports';
import { deviceHealthOf, deviceStatusOf } from '#domain/device-health';
import { MATRIQ_ROUTES } from './routes.js';
import { publishStopCommand } from './stop-commands.js';

const STOP_SCOPE = 'matriq:ai-scheduler:stop';
const DEFAULT_STOP_REASON = 'Emergency stop requested through the Customer API';

async function stateOf(req: LocationRequest, deps: Deps): Promise<MatriqState> {
  const state = await deps.store.matriq.get(req.location.groupId, req.location.id);
  if (!state) throw new ApiError('not_found', 'No display devices are registered for this location.');
  return state;
}

/** The stored draft only when it is for the active business day; another day's draft is never shown as current. */
const currentDraft = ({ draft }: MatriqState['scheduler'], businessDay: string) => (draft?.businessDay === businessDay ? draft : null);

async function providerAvailable(req: LocationRequest, deps: Deps) {
  const location = req.location;
  const businessDate = businessDateAt(location, req.now);
  const day = await readSportsDay(deps.store, location, businessDate.calendarDate, req.now);
  const providers = day.environment?.providers ?? [];
  const logoOf = (providerId: string) => sportsLogoUrl(req.baseUrl, providers.find((p) => p.id === providerId)?.logo ?? null);
  const rows = (day.schedule?.events ?? []).flatMap((event) => {
    const side = (role: string) => event.participants.find((p) => p.role === role);
    return (day.exactViewing?.options[event.id] ?? [])
      .filter((o) => o.available)
      .map((o) => ({
        eventId: event.id,
        title: event.name,
        league: event.league.abbreviation,
        leagueLogo: sportsLogoUrl(req.baseUrl, event.league.image),
        homeTeam: side('home')?.name ?? '',
        awayTeam: side('away')?.name ?? '',
        homeLogo: sportsLogoUrl(req.baseUrl, side('home')?.image ?? null),
        awayLogo: sportsLogoUrl(req.baseUrl, side('away')?.image ?? null),
        providerLabel: o.provider.name,
        providerLogo: logoOf(o.provider.id),
        channelNumber: o.channel,
      }));
  });
  return ok(req, {
    location: locationRefOf(location),
    businessDate: { ...businessDate, timezone: location.timezone },
    providers: providers.map((p) => ({ providerKey: p.id, providerLabel: p.name, providerLogo: sportsLogoUrl(req.baseUrl, p.logo) })),
    providersAvailable: rows,
    refresh: MATRIQ_REFRESH,
  });
}

/** A draft but its content: its day, whether it is published, its status. */
const head = ({ title: _title, items: _items, ...rest }: NonNullable<MatriqState['scheduler']['draft']>) => rest;

function stopView(command: Pick<StopCommand, 'status' | 'deviceId' | 'commandId' | 'requestedAt' | 'reason' | 'completedAt'>) {
  const { status, deviceId, commandId, requestedAt, reason, completedAt } = command;
  return { status, deviceId, commandId, requestedAt, reason, completedAt, refresh: MATRIQ_REFRESH };
}

/** Most routes read the location's device state, named by the path; provider availability reads today's sports day there. */
const deviceState = ({ params: p }: ReadHints) => [matriqKeys.state(p.group_id!, p.location_id!)];

/** A read of the device state: the location, what `view` shows of the state, the cadence. */
const stateRead = (view: (state: MatriqState, req: LocationRequest) => object) => ({
  reads: deviceState,
  async run(req: LocationRequest, deps: Deps) {
    return ok(req, { location: locationRefOf(req.location), ...view(await stateOf(req, deps), req), refresh: MATRIQ_REFRESH });
  },
});
const todaysSports = ({ params: p, timezone, now }: ReadHints) => sportsDayReads(p.group_id!, p.location_id!, todayIn(timezone, now), now);

export const operations: Operations<typeof MATRIQ_ROUTES> = {
  matriqOverview: {
    reads: (hints) => [...deviceState(hints), sportsKeys.provider(hints.params.group_id!, hints.params.location_id!)],
    async run(req, deps) {
      const location = req.location;
      const [state, environment] = await Promise.all([stateOf(req, deps), deps.store.sports.getProvider(location.groupId, location.id)]);
      const draft = currentDraft(state.scheduler, businessDateAt(location, req.now).active);
      const base = `${locationUrl(req.baseUrl, req.location)}/matriq`;
      return ok(req, {
        location: locationRefOf(location),
        summary: {
          deviceIds: state.devices.map((d) => d.id),
          providerCount: environment?.providers.length ?? 0,
          aiSchedulerPublished: draft?.published ?? false,
          aiSchedulerRunning: state.scheduler.running,
        },
        endpoints: Object.fromEntries(MATRIQ_RESOURCES.map((r) => [r, `${base}/${r}`])),
        refresh: Object.fromEntries(MATRIQ_RESOURCES.map((r) => [r, MATRIQ_REFRESH])),
      });
    },
  },

  matriqGateway: stateRead(({ gateway }, req) => ({ gateway: { ...gateway, health: deviceHealthOf(gateway.lastSeenAt, req.now) } })),

  matriqDevices: stateRead(({ devices }, req) => ({
    devices: devices.map((d) => ({ ...d, health: deviceHealthOf(d.lastSeenAt, req.now) })),
    deviceStatus: deviceStatusOf(devices, req.now),
  })),

  matriqProviderAvailable: { reads: todaysSports, run: providerAvailable },
  providerAvailableAlias: { reads: todaysSports, run: providerAvailable },

  matriqAiScheduler: stateRead(({ scheduler }, req) => {
    const businessDay = businessDateAt(req.location, req.now).active;
    const draft = currentDraft(scheduler, businessDay);
    return {
      deviceIds: scheduler.deviceIds,
      businessDay,
      statusUpdatedAt: scheduler.statusUpdatedAt,
      publishedDraftUpdatedAt: draft ? scheduler.publishedDraftUpdatedAt : null,
      status: {
        running: scheduler.running,
        published: draft?.published ?? false,
        draftExists: draft !== null,
        runtime: {
          emergencyStopActive: scheduler.emergencyStopActive,
          lastStartAt: scheduler.lastStartAt,
          lastStopAt: scheduler.lastStopAt,
        },
      },
      currentPublishedDraft: draft && { ...head(draft), draft: { title: draft.title, items: draft.items } },
      actions: [
        {
          label: 'Emergency stop',
          method: 'POST' as const,
          endpoint: `${locationUrl(req.baseUrl, req.location)}/matriq/aiScheduler/emergency-stop`,
          scope: STOP_SCOPE,
          description:
            'Queues an immediate stop of the Auto Scheduler. Optional JSON body {"reason", "deviceId"}; send an Idempotency-Key header to retry safely. The command is applied when the gateway reports it.',
        },
      ],
    };
  }),

  /**
   * Queues the stop: the command is written (durably, conditionally), then sent on the stop-command queue, before
   * the reply; a send that fails is the sweeper's (stop-commands.ts). With an Idempotency-Key the command id is
   * derived from the location, the application and the key, so a retry — even a concurrent one — finds the same
   * command (with its current status) instead of queuing another, and sends nothing.
   */
  matriqEmergencyStop: {
    reads: deviceState,
    async run(req, deps) {
      const body = parseJsonBody(req.event, emergencyStopBody);
      const key = idempotencyKeyOf(req.event);
      const location = req.location;
      const clientId = req.auth.app.clientId;
      const { scheduler } = await stateOf(req, deps);
      const deviceId = body.deviceId ?? scheduler.deviceIds[0];
      if (!deviceId) throw new ApiError('not_found', 'This location has no Auto Scheduler device to stop.');
      if (!scheduler.deviceIds.includes(deviceId)) {
        throw new ApiError('invalid_request', `Body field deviceId must be one of the Auto Scheduler's deviceIds, not ${deviceId}.`);
      }
      const command: NewStopCommand = {
        commandId: `cmd_${key ? sha256Hex(JSON.stringify([location.groupId, location.id, clientId, key])).slice(0, 32) : randomUUID().replaceAll('-', '')}`,
        groupId: location.groupId,
        locationId: location.id,
        deviceId,
        reason: body.reason ?? DEFAULT_STOP_REASON,
        requestedAt: new Date(req.now).toISOString(),
        status: 'queued',
        completedAt: null,
        clientId,
        requestFingerprint: sha256Hex(JSON.stringify([body.reason ?? null, body.deviceId ?? null])),
      };
      const created = await deps.store.matriq.createCommand(command);
      if (created) {
        await publishStopCommand(deps, created);
        return ok(req, stopView(created));
      }
      const existing = await deps.store.matriq.getCommand(command.commandId);
      if (!existing) throw new Error(`command ${command.commandId} exists but cannot be read`);
      if (existing.requestFingerprint !== command.requestFingerprint) throw new ApiError('idempotency_key_reused');
      return ok(req, stopView(existing), { 'Idempotent-Replayed': 'true' });
    },
  },
};

/**
 * Display devices: gateway, devices, provider availability, Auto Scheduler and its emergency stop. In Lambda the
 * stop-command queue is reached without the SQS client (platform/signed-queue.ts), so the bundle stays a read's.
 */
export const { repositories, createHandler, handler } = v1Function(
  'matriq',
  operations,
  MATRIQ_ROUTES,
  { matriq: matriqRepo, sports: sportsRepo },
  (repositories) => {
    const dynamodb = new DynamoDBClient({});
    const deps = buildDeps(dynamodb, repositories);
    return { ...deps, stopCommands: signedSendingQueue(dynamodb, deps.config.stopCommandQueueUrl) };
  },
);
