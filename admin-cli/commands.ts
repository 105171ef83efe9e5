import { SECRET_OVERLAP_HOURS } from '#lambdas/admin/apps';
import { allPages } from '#platform/admin-paging';
import { AdminInputError, type AppInput } from '#domain/inputs';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '#platform/config';
import type { App } from '#data/apps';
import type { Group } from '#data/groups';
import type { Location } from '#data/locations';
import type { KeyVersionState } from '#data/token-keys';
import { MODULES, type ModulesEnabled } from '#contract/scopes';
import { fields, show, table, type Column } from './format.js';
import { defineCommand, type Command, type Values } from './spec.js';
import { BEVQ_COMMANDS } from './bevq-commands.js';
import { MAIL_COMMANDS } from './mail-commands.js';
import { VENUE_MODULE_COMMANDS } from './venue-module-commands.js';
import { readJsonFile } from './read-json.js';
import { shiftqFileEntries, type ShiftqLoaded } from '#lambdas/producers/loads/shiftq';
import { CLIENT_CREDENTIALS, LEGACY_BEARER, type CredentialType } from '#contract/credentials';

/**
 * Every admin command, declared once. Names, flags and the --json shapes are
 * a public interface for ops scripts: add, never rename. Every key of every
 * --json document is camelCase, as in the admin API's bodies (a test runs each
 * command to hold it). Every command goes through the target's admin API
 * (`api`), which validates, changes and audits.
 */

const appFlags = {
  group: { value: 'G', required: true },
  scopes: { value: 'S1,S2', kind: 'list', required: true },
  locations: { value: 'L1,L2', kind: 'list' },
  'rate-limit': { value: 'N', kind: 'int' },
  'owner-email': { value: 'E' },
  name: { value: 'N' },
  'expires-at': { value: 'ISO' },
} as const;

const appColumns: Column<App>[] = [
  ['CLIENT ID', (a) => a.clientId],
  ['GROUP', (a) => a.groupId],
  ['NAME', (a) => a.name],
  ['TYPE', (a) => a.credentialType],
  ['STATUS', (a) => a.status],
  ['SCOPES', (a) => show(a.scopes)],
  ['LOCATIONS', (a) => (a.allowedLocationIds ? show(a.allowedLocationIds) : 'all')],
];

type KeyVersions = { versions: KeyVersionState[] };

type LegacyCredential = { clientId: string; groupId: string; name: string; status: string; tokenPrefix: string; lastUsedAt: string | null };

const keyColumns: Column<KeyVersionState>[] = [
  ['VERSION', (v) => String(v.version)],
  ['STATE', (v) => v.state],
  ['CREATED', (v) => v.createdAt],
  ['RETIRES', (v) => v.retiresAt ?? '—'],
  ['REVOKED', (v) => v.revokedAt ?? '—'],
];

const locationColumns: Column<Location>[] = [
  ['ID', (l) => l.id],
  ['NAME', (l) => l.name],
  ['SHORT NAME', (l) => l.locationShortName],
  ['TIMEZONE', (l) => l.timezone],
  ['SLUG', (l) => l.slug],
  ['STATUS', (l) => l.status],
  ['MODULES', (l) => show(l.modulesEnabled)],
];

/** `apps create` and `apps create-legacy` differ only in the credential they hand out. */
function createAppCommand(credentialType: CredentialType) {
  const legacy = credentialType === LEGACY_BEARER;
  const secretName = legacy ? 'legacyCredential' : 'clientSecret';
  return defineCommand({
    name: legacy ? 'apps create-legacy' : 'apps create',
    summary: legacy
      ? 'Create an application with a legacy bearer credential, shown only once. Flags as for apps create.'
      : [
          'Create an OAuth client application; its client secret is shown only once. Defaults: --locations the whole',
          `group (also locations added later), --rate-limit ${DEFAULT_RATE_LIMIT_PER_MINUTE} a minute, --name "<G> app", no expiry.`,
          '--expires-at takes an ISO 8601 time with Z or an offset.',
        ].join('\n'),
    flags: appFlags,
    json: `{"app": App, "${secretName}": "..."}`,
    async run({ flags, api }) {
      const created: { app: App; clientSecret?: string; legacyCredential?: string } = await api.call(
        legacy ? 'createLegacyApp' : 'createApp',
        { body: appInput(flags) },
      );
      const secret = (legacy ? created.legacyCredential : created.clientSecret)!;
      const label = legacy ? 'legacy_credential' : 'client_secret';
      return {
        json: created,
        text: [
          `Created application ${created.app.clientId} in group ${created.app.groupId}.`,
          fields({ client_id: created.app.clientId, [label]: secret }),
          `The ${label.replace('_', ' ')} is shown only now: store it safely, it cannot be shown again.`,
        ].join('\n'),
      };
    },
  });
}

/** Flags → createApp input; createApp validates every field (scope names included) before writing. */
function appInput(flags: Values<typeof appFlags>): AppInput {
  return {
    groupId: flags.group,
    name: flags.name ?? `${flags.group} app`,
    scopes: flags.scopes as AppInput['scopes'],
    allowedLocationIds: flags.locations ?? null,
    rateLimitPerMinute: flags['rate-limit'],
    ownerEmail: flags['owner-email'] ?? null,
    expiresAt: flags['expires-at'] ?? null,
  };
}

/** `--modules a,b` → every module, on when listed. */
function modulesEnabled(listed: string[]): ModulesEnabled {
  const unknown = listed.filter((m) => !(MODULES as readonly string[]).includes(m));
  if (unknown.length) throw new AdminInputError(`unknown modules: ${unknown.join(', ')} (known: ${MODULES.join(', ')})`);
  return Object.fromEntries(MODULES.map((m) => [m, listed.includes(m)])) as ModulesEnabled;
}

export const COMMANDS: readonly Command[] = [
  createAppCommand(CLIENT_CREDENTIALS),
  createAppCommand(LEGACY_BEARER),
  defineCommand({
    name: 'apps list',
    summary:
      'List applications, optionally of one group, or matching --search (an id, or part of a name). Never shows a secret or its hash.',
    flags: { group: { value: 'G' }, search: { value: 'TEXT' } },
    json: '{"apps": [App]}',
    async run({ flags, api }) {
      const pages = await allPages<{ apps: App[] }>((cursor) =>
        api.call('listApps', { query: { groupId: flags.group, q: flags.search, cursor } }),
      );
      const listed = { apps: pages.flatMap((p) => p.apps) };
      return { json: listed, text: table(listed.apps, appColumns) };
    },
  }),
  defineCommand({
    name: 'apps show',
    summary: 'Show one application.',
    arg: 'ID',
    flags: {},
    json: '{"app": App}',
    async run({ arg, api }) {
      const shown: { app: App } = await api.call('showApp', { params: { clientId: arg } });
      const { app } = shown;
      return { json: shown, text: fields({ ...app, allowedLocationIds: app.allowedLocationIds ?? 'all' }, '') };
    },
  }),
  defineCommand({
    name: 'apps revoke',
    summary: 'Revoke an application; its tokens fail on their next use.',
    arg: 'ID',
    flags: {},
    json: '{"revoked": "ID"}',
    async run({ arg, api }) {
      return { json: await api.call('revokeApp', { params: { clientId: arg }, body: {} }), text: `Revoked application ${arg}.` };
    },
  }),
  defineCommand({
    name: 'apps rotate-secret',
    summary: [
      'Give an application a new client secret, shown only once. The replaced secret keeps working for',
      `--overlap-hours (default ${SECRET_OVERLAP_HOURS.default}, at most ${SECRET_OVERLAP_HOURS.max}; 0 for a leaked secret: it stops at once).`,
      'Tokens already issued keep their 24 hours, unless --end-old-tokens: then every token of an older secret ends',
      'with the replaced secret (0 always ends them, at once). Revoke the application to end every token.',
    ].join('\n'),
    arg: 'ID',
    flags: { 'overlap-hours': { value: 'N', kind: 'int' }, 'end-old-tokens': { value: '', kind: 'switch' } },
    json: '{"app": App, "clientSecret": "...", "oldTokensEndAt": "..." | null}',
    async run({ arg, flags, api }) {
      const hours = flags['overlap-hours'];
      const rotated: { app: App; clientSecret: string; oldTokensEndAt: string | null } = await api.call('rotateClientSecret', {
        params: { clientId: arg },
        body: {
          ...(hours === undefined ? {} : { overlapHours: hours }),
          ...(flags['end-old-tokens'] ? { endOldTokens: true } : {}),
        },
      });
      return {
        json: rotated,
        text: [
          `Rotated the client secret of ${arg}; the replaced secret works until ${rotated.app.previousSecretExpiresAt}.`,
          rotated.oldTokensEndAt
            ? `Tokens of the replaced secrets end at ${rotated.oldTokensEndAt}.`
            : 'Tokens already issued keep their 24 hours.',
          fields({ client_id: arg, client_secret: rotated.clientSecret }),
          'The client secret is shown only now: store it safely, it cannot be shown again.',
        ].join('\n'),
      };
    },
  }),
  defineCommand({
    name: 'apps legacy-report',
    summary:
      'List legacy bearer credentials with their application, status and last use (written once an hour: the latest use may be up to an hour later), oldest first.',
    flags: {},
    json: '{"legacyCredentials": [{"clientId", "groupId", "name", "status", "tokenPrefix", "createdAt", "lastUsedAt"}]}',
    async run({ api }) {
      const pages = await allPages<{ legacyCredentials: LegacyCredential[] }>((cursor) => api.call('legacyReport', { query: { cursor } }));
      const legacyCredentials = pages.flatMap((p) => p.legacyCredentials);
      const text = table(legacyCredentials, [
        ['CLIENT ID', (c) => c.clientId],
        ['GROUP', (c) => c.groupId],
        ['NAME', (c) => c.name],
        ['STATUS', (c) => c.status],
        ['PREFIX', (c) => c.tokenPrefix],
        ['LAST USED', (c) => c.lastUsedAt ?? 'never'],
      ]);
      return { json: { legacyCredentials }, text };
    },
  }),
  defineCommand({
    name: 'token-keys list',
    summary: "Show the access-token key's versions: which signs, which verify until when, which are revoked. Never a key.",
    flags: {},
    json: '{"versions": [{"version", "state", "createdAt", "retiresAt", "revokedAt"}]}',
    async run({ api }) {
      const listed: KeyVersions = await api.call('listTokenKeys');
      return { json: listed, text: table(listed.versions, keyColumns) };
    },
  }),
  defineCommand({
    name: 'token-keys rotate',
    summary: 'Add an access-token key version that signs from now on; the replaced one verifies its tokens until they expire (24 h).',
    flags: {},
    json: '{"versions": [...]}',
    async run({ api }) {
      const rotated: KeyVersions = await api.call('rotateTokenKey', { body: {} });
      return { json: rotated, text: table(rotated.versions, keyColumns) };
    },
  }),
  defineCommand({
    name: 'token-keys revoke',
    summary: 'Revoke a compromised access-token key version: its tokens are refused from now on (a new version signs if it did).',
    arg: 'VERSION',
    flags: {},
    json: '{"versions": [...]}',
    async run({ arg, api }) {
      const revoked: KeyVersions = await api.call('revokeTokenKey', { params: { version: arg }, body: {} });
      return { json: revoked, text: table(revoked.versions, keyColumns) };
    },
  }),
  defineCommand({
    name: 'groups list',
    summary: 'List groups.',
    flags: {},
    json: '{"groups": [Group]}',
    async run({ api }) {
      const { groups }: { groups: Group[] } = await api.call('listGroups');
      const text = table(groups, [
        ['ID', (g) => g.groupId],
        ['NAME', (g) => g.name],
        ['CREATED', (g) => g.createdAt],
      ]);
      return { json: { groups }, text };
    },
  }),
  defineCommand({
    name: 'groups put',
    summary: 'Create or rename a group.',
    flags: { id: { value: 'G', required: true }, name: { value: 'N', required: true } },
    json: '{"group": Group}',
    async run({ flags, api }) {
      const { group }: { group: Group } = await api.call('putGroup', { params: { groupId: flags.id }, body: { name: flags.name } });
      return { json: { group }, text: `Saved group ${group.groupId} (${group.name}).` };
    },
  }),
  defineCommand({
    name: 'locations list',
    summary: 'List the locations of a group.',
    flags: { group: { value: 'G', required: true } },
    json: '{"locations": [Location]}',
    async run({ flags, api }) {
      const { locations }: { locations: Location[] } = await api.call('listLocations', { params: { groupId: flags.group } });
      return { json: { locations }, text: table(locations, locationColumns) };
    },
  }),
  defineCommand({
    name: 'locations put',
    summary: 'Create or replace a location of an existing group. Modules not listed are disabled.',
    flags: {
      group: { value: 'G', required: true },
      id: { value: 'L', required: true },
      name: { value: 'N', required: true },
      'short-name': { value: 'S', required: true },
      timezone: { value: 'Z', required: true },
      slug: { value: 'SLUG', required: true },
      status: { value: 'active|inactive' },
      modules: { value: 'M1,M2', kind: 'list' },
    },
    json: '{"location": Location}',
    async run({ flags, api }) {
      const { location }: { location: Location } = await api.call('putLocation', {
        params: { groupId: flags.group, locationId: flags.id },
        body: {
          name: flags.name,
          locationShortName: flags['short-name'],
          timezone: flags.timezone,
          slug: flags.slug,
          status: flags.status,
          modulesEnabled: modulesEnabled(flags.modules ?? []),
        },
      });
      return { json: { location }, text: `Saved location ${location.groupId}/${location.id} (${location.name}).` };
    },
  }),
  defineCommand({
    name: 'venues load',
    summary: [
      'Load a JSON venue file, validating all of it before writing anything:',
      '{"groups": [{"groupId", "name", "locations": [{"id", "name", "locationShortName", "timezone", "slug",',
      '"status"?, "modulesEnabled": {"<module>": true|false}}]}]}',
    ].join('\n'),
    flags: { file: { value: 'F', required: true } },
    json: '{"groups": [{"group": Group, "locations": [Location]}]}',
    async run({ flags, api }) {
      const { groups }: { groups: { group: Group; locations: Location[] }[] } = await api.call('loadVenues', {
        body: await readJsonFile(flags.file),
      });
      const text = groups
        .map(({ group, locations }) => `Loaded group ${group.groupId} (${group.name}) with ${locations.length} location(s).`)
        .join('\n');
      return { json: { groups }, text: text || 'The file has no groups.' };
    },
  }),
  defineCommand({
    name: 'shiftq load',
    summary: [
      'Load staff-and-operations data for one location from a JSON file: one entry {"kind", "businessDate"?, "data"}',
      'or {"entries": [...]}. Kinds kitchen, sales, labor, clockIns take businessDate YYYYMMDD (not before the 366-day',
      'retention, not after the current business date); posMenu, employees, reservations and reviews do not.',
      'Every entry is validated before anything is written.',
    ].join('\n'),
    flags: { group: { value: 'G', required: true }, location: { value: 'L', required: true }, file: { value: 'F', required: true } },
    json: '{"loaded": [{"kind", "businessDate", "records"}]}',
    async run({ flags, api }) {
      const { loaded }: { loaded: ShiftqLoaded[] } = await api.call('loadShiftq', {
        params: { groupId: flags.group, locationId: flags.location },
        body: { entries: shiftqFileEntries(await readJsonFile(flags.file)) },
      });
      const text = loaded
        .map(
          (l) =>
            `Loaded ${l.kind}${l.businessDate ? ` for ${l.businessDate}` : ''} (${l.records} record(s)) at ${flags.group}/${flags.location}.`,
        )
        .join('\n');
      return { json: { loaded }, text };
    },
  }),
  ...BEVQ_COMMANDS,
  ...VENUE_MODULE_COMMANDS,
  ...MAIL_COMMANDS,
];
