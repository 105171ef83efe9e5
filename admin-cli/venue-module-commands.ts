import type { StopCommand } from '#data/matriq';
import { AdminInputError } from '#domain/inputs';
import { fields } from './format.js';
import { readJsonFile } from './read-json.js';
import { defineCommand, type Command } from './spec.js';

/** Sports programming, display devices (with the gateway's stop results) and campaigns. */

const fileFlag = { file: { value: 'F', required: true } } as const;

export const VENUE_MODULE_COMMANDS: readonly Command[] = [
  defineCommand({
    name: 'sports load',
    summary: [
      'Load sports data from a JSON file {schedules: [{date, events}], environments: [...], viewing: [{groupId, locationId,',
      'date, options: {eventId: [viewing option]}}]}. The whole file is validated before anything is written.',
    ].join('\n'),
    flags: fileFlag,
    json: '{"schedules": N, "environments": N, "viewing": N}',
    async run({ flags, api }) {
      const result: { schedules: number; environments: number; viewing: number } = await api.call('loadSports', {
        body: await readJsonFile(flags.file),
      });
      return {
        json: result,
        text: `Loaded ${result.schedules} schedule(s), ${result.environments} provider environment(s), ${result.viewing} viewing record(s).`,
      };
    },
  }),
  defineCommand({
    name: 'matriq load',
    summary:
      "Load display devices, gateways and Auto Scheduler state from a JSON file {locations: [...]} (replaces each listed location's).",
    flags: fileFlag,
    json: '{"locations": N}',
    async run({ flags, api }) {
      const result: { locations: number } = await api.call('loadMatriq', { body: await readJsonFile(flags.file) });
      return { json: result, text: `Loaded display devices for ${result.locations} location(s).` };
    },
  }),
  defineCommand({
    name: 'matriq stop-result',
    summary: [
      "Record the gateway's result for an emergency-stop command: applied (the Auto Scheduler is then stopped,",
      'emergency stop active) or failed. Repeating the same result is harmless; a contradicting one is refused.',
    ].join('\n'),
    flags: { command: { value: 'ID', required: true }, status: { value: 'applied|failed', required: true } },
    json: '{"command": StopCommand}',
    async run({ flags, api }) {
      if (flags.status !== 'applied' && flags.status !== 'failed') throw new AdminInputError('--status must be applied or failed');
      const { command }: { command: Omit<StopCommand, 'requestFingerprint'> } = await api.call('reportStopResult', {
        params: { commandId: flags.command },
        body: { status: flags.status },
      });
      return { json: { command }, text: fields(command, '') };
    },
  }),
  defineCommand({
    name: 'campaigns load',
    summary: 'Create or replace campaigns from a JSON file {campaigns: [{groupId, id, name, locationIds, startsAt, endsAt, paused?}]}.',
    flags: fileFlag,
    json: '{"campaigns": N}',
    async run({ flags, api }) {
      const result: { campaigns: number } = await api.call('loadCampaigns', { body: await readJsonFile(flags.file) });
      return { json: result, text: `Loaded ${result.campaigns} campaign(s).` };
    },
  }),
];
