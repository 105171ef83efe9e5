import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCampaigns } from '#lambdas/producers/loads/campaigns';
import { loadMatriq } from '#lambdas/producers/loads/matriq';
import { loadShiftq, shiftqFileEntries } from '#lambdas/producers/loads/shiftq';
import { loadSports } from '#lambdas/producers/loads/sports';
import { loadVenues } from '#lambdas/producers/loads/venues';
import { publishMenu } from '#lambdas/webhooks/publish';
import { SCOPES } from '#contract/scopes';
import type { LocalRuntime } from '#local/runtime';
import { runSmoke } from '#smoke/run';
import { newApp, startTestRuntime } from '../support/runtime.js';

/**
 * The sample files (examples/data/) are valid as they are and are all a fresh stage needs for the smoke checks:
 * loaded into an empty table by the functions the CLI's load commands run (docs/operations.md runs the commands
 * themselves), every check passes and none is skipped.
 */
const sample = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../examples/data/${name}`, import.meta.url), 'utf8'));

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime({ seed: false });
});
afterAll(() => runtime?.stop());

describe('the sample files', () => {
  it('load into an empty stage, and the smoke checks then pass with none skipped', async () => {
    const { store } = runtime;
    const now = runtime.deps.clock.now();
    const venues = sample('venues.json') as { groups: [{ groupId: string; locations: [{ id: string }] }] };
    const [
      {
        groupId,
        locations: [{ id: locationId }],
      },
    ] = venues.groups;
    await loadVenues(store, venues, now);
    await loadShiftq(store, { groupId, locationId, entries: shiftqFileEntries(sample('shiftq.json')) }, now);
    await loadSports(store, sample('sports.json'), now);
    await loadMatriq(store, sample('matriq.json'), now);
    await loadCampaigns(store, sample('campaigns.json'), now);
    await publishMenu(runtime.deps, { groupId, locationId, menu: sample('menu.json') });

    const { clientId, clientSecret } = await newApp(runtime, { groupId, scopes: SCOPES.filter((s) => s.endsWith(':read')) });
    const lines: string[] = [];
    const passed = await runSmoke({ baseUrl: runtime.url, groupId, clientId, clientSecret }, (line) => lines.push(line));
    expect([passed, lines.at(-1)], lines.join('\n')).toEqual([true, expect.stringMatching(/ checks passed, 0 skipped /)]);
  });
});
