import { loadCampaigns } from '#lambdas/producers/loads/campaigns';
import { loadMatriq } from '#lambdas/producers/loads/matriq';
import { loadSports } from '#lambdas/producers/loads/sports';
import { AdminInputError } from '#domain/inputs';
import { recordStopResult } from '#lambdas/producers/matriq';
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
    async run({ flags, store, now }) {
      const result = await loadSports(store, await readJsonFile(flags.file), now);
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
    async run({ flags, store, now }) {
      const result = await loadMatriq(store, await readJsonFile(flags.file), now);
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
    async run({ flags, store, now }) {
      if (flags.status !== 'applied' && flags.status !== 'failed') throw new AdminInputError('--status must be applied or failed');
      // The device platform's route's code: the operator's report is the source, observed when it runs.
      const { command } = await recordStopResult(store, { commandId: flags.command, status: flags.status }, { sourceMs: now, sequence: 0 });
      const { requestFingerprint: _fingerprint, ...shown } = command;
      return { json: { command: shown }, text: fields(shown, '') };
    },
  }),
  defineCommand({
    name: 'campaigns load',
    summary: 'Create or replace campaigns from a JSON file {campaigns: [{groupId, id, name, locationIds, startsAt, endsAt, paused?}]}.',
    flags: fileFlag,
    json: '{"campaigns": N}',
    async run({ flags, store, now }) {
      const result = await loadCampaigns(store, await readJsonFile(flags.file), now);
      return { json: result, text: `Loaded ${result.campaigns} campaign(s).` };
    },
  }),
];
