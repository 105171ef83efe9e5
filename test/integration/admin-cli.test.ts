import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_PREFIX } from '#lambdas/admin/apps';
import { fixtureGroup } from '../fixtures/venues.js';
import { sha256Hex } from '#domain/crypto';
import { runCli } from '#admin-cli/run';
import type { LocalRuntime } from '#local/runtime';
import { publishMenu } from '#lambdas/webhooks/publish';
import { sampleMenu } from '#local/demo-menu';
import { adminCall, expectUnchanged, newApp, scanTable, startTestRuntime } from '../support/runtime.js';
import { admin as runAdmin, runtimeFileFor, type Run } from '../fixtures/admin-cli.js';

/** The admin CLI as ops run it: a real subprocess against a real local runtime, checked through the store. */

let runtime: LocalRuntime;
let dir: string;
let runtimeFile: string;

beforeAll(async () => {
  // No scheduled sweep: the table snapshots that show a refusal changed nothing would catch its writes too.
  runtime = await startTestRuntime({ sweepEveryMs: 24 * 3_600_000 });
  dir = mkdtempSync(join(tmpdir(), 'admin-cli-'));
  runtimeFile = runtimeFileFor(runtime, dir, 'runtime.json');
});
afterAll(async () => {
  await runtime?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function writeFile(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** One CLI process (~1 s each: keep the count down); stderr as an operator sees it, SDK notices included. */
function admin(args: string[], env: Record<string, string> = {}) {
  return runAdmin(runtimeFile, args, { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: undefined, ...env });
}

/** Every item in the table, in key order: "nothing changed" means this is equal before and after. */
async function snapshot() {
  const items = await scanTable(runtime);
  return items.sort((a, b) => `${a.PK}|${a.SK}`.localeCompare(`${b.PK}|${b.SK}`));
}

/** Runs a command that must be refused: exit 2, a message on stderr, nothing on stdout, the table unchanged. */
async function refused(args: string[], message: RegExp): Promise<Run> {
  const before = await snapshot();
  const run = await admin(args);
  expect(run.stderr).toMatch(message);
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  expectUnchanged(await snapshot(), before);
  return run;
}

/**
 * The CLI's own entry (what bin/admin.ts runs) in this process, aimed at a
 * runtime file that does not exist: whatever it accepts, it can reach no
 * store, so trying every command and flag writes nothing and costs no
 * process each.
 */
async function offline(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { CUSTOMER_API_RUNTIME_FILE: join(dir, 'no-runtime.json') },
  });
  return { code, out, err };
}

/** A command as the help text shows it: its name and each flag with a sample value (null for a switch). */
type Synopsis = { name: string; flags: [string, string | null][] };

/** Flags every command takes (the help's "Target" and "Every command also takes" sections). */
const GLOBAL_FLAGS = ['json', 'debug', 'stage', 'region', 'runtime-file'];

/** A value of the kind a placeholder names: a number for N, an ISO time for ISO, the first of a|b, else the placeholder. */
function sample(placeholder: string): string {
  if (placeholder === 'N') return '1';
  if (placeholder === 'ISO') return '2030-01-01T00:00:00Z';
  return placeholder.split('|')[0]!;
}

/** The commands of the help's "Commands:" section: lines indented two spaces, name words in lowercase, then ARG and flags. */
function synopses(help: string): Synopsis[] {
  const section = help.split('\nCommands:\n')[1]!.split('\n\n')[0]!;
  return section
    .split('\n')
    .filter((line) => /^ {2}[a-z]/.test(line))
    .map((line) => {
      const words = line.trim().split(/\s+/);
      const name = words.filter((w, i) => /^[a-z][a-z-]*$/.test(w) && words.slice(0, i).every((p) => /^[a-z][a-z-]*$/.test(p))).join(' ');
      const tokens = words.map((w) => w.replace(/^\[|\]$/g, ''));
      const flags: [string, string | null][] = [];
      tokens.forEach((t, i) => {
        if (!t.startsWith('--')) return;
        const next = tokens[i + 1];
        flags.push([t.slice(2), next !== undefined && !next.startsWith('--') && words[i]!.endsWith(']') === false ? sample(next) : null]);
      });
      return { name, flags };
    })
    .filter((c) => c.name !== 'help');
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every page a reader may copy a command from: README.md, bench/README.md and every .md under docs/. */
function documentationPages(): { path: string; text: string }[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', 'bench/README.md', ...docs].map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
}

/**
 * Commands the documentation shows: every `npm run admin -- <group> <verb>` on any page, and each line of the CLI
 * block under the "Admin CLI" heading (docs/admin.md), with the flags given.
 */
function documentedCommands(pages: { path: string; text: string }[]): { name: string; flags: string[] }[] {
  const found: { name: string; flags: string[] }[] = [];
  const add = (text: string) => {
    const [group, verbs] = text.trim().split(/\s+/);
    if (!group || !verbs || !/^[a-z]/.test(verbs)) return;
    const flags = [...text.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]!);
    // "destinations add|list|show" names several verbs of one group.
    for (const verb of verbs.split('|')) found.push({ name: `${group} ${verb}`, flags });
  };
  for (const { text } of pages) for (const m of text.matchAll(/npm run admin -- ([^`\n#]+)/g)) add(m[1]!);
  const withBlock = pages.filter(({ text }) => text.includes('\n## Admin CLI\n'));
  expect(
    withBlock.map(({ path }) => path),
    'exactly one page holds the CLI block',
  ).toHaveLength(1);
  const block = withBlock[0]!.text.split('\n## Admin CLI\n')[1]!.split('```')[1]!;
  for (const line of block.split('\n')) for (const segment of line.split('#')[0]!.split(' | ')) add(segment);
  return found;
}

const LOCATION_FLAGS = ['--name', 'Ops One', '--short-name', 'One', '--timezone', 'America/Chicago', '--slug', 'ops-one'];

describe('admin CLI', () => {
  describe('help', () => {
    // The help text as an operator reads it: one real process; the commands it lists are then tried for what they accept.
    let help: Run;
    let listed: Synopsis[];
    beforeAll(async () => {
      help = await admin(['help']);
      listed = synopses(help.stdout);
    });

    it('prints the usage on stdout with exit 0, listing commands', () => {
      expect(help.code).toBe(0);
      expect(help.stderr).toBe('');
      expect(help.stdout).toMatch(/^Usage: npm run admin -- <command> \[flags\]\n/);
      // Enough that the parse below cannot pass on an empty list.
      expect(listed.length).toBeGreaterThan(20);
      expect(listed.map((c) => c.name)).toContain('menus publish');
    });

    it('lists only commands that exist: each is taken as a command, not "unknown command"', async () => {
      for (const { name } of listed) {
        const run = await offline([...name.split(' ')]);
        expect(run.err, name).not.toMatch(/unknown command/);
        // Harmless: without a runtime to reach, it stops at what is missing (an argument, a flag, the runtime).
        expect(run.code, name).toBe(2);
        expect(run.err, name).toMatch(/takes one|needs --|takes no arguments|no local runtime is running/);
      }
      // The same probe does tell an unknown command apart.
      expect((await offline(['apps', 'frobnicate'])).err).toMatch(/unknown command "apps frobnicate"/);
    });

    it('names for each command only flags it accepts, and each refuses a flag it does not name', async () => {
      let flagsTried = 0;
      for (const { name, flags } of listed) {
        for (const [flag, value] of flags) {
          const run = await offline([...name.split(' '), `--${flag}`, ...(value === null ? [] : [value])]);
          expect(run.err, `${name} --${flag}`).not.toMatch(/Unknown option|unknown command/);
          expect(run.code, `${name} --${flag}`).toBe(2);
          flagsTried++;
        }
        const unknown = await offline([...name.split(' '), '--no-such-flag']);
        expect(unknown.code, name).toBe(2);
        expect(unknown.err, name).toMatch(/Unknown option '--no-such-flag'/);
      }
      expect(flagsTried).toBeGreaterThan(30);
    });

    it('lists every command the documentation shows, with the flags it gives', async () => {
      const documented = documentedCommands(documentationPages());
      // The CLI block (docs/admin.md) and the other pages' lines (webhooks, operations' runbook) name these at least.
      expect(documented.map((d) => d.name)).toEqual(
        expect.arrayContaining(['apps create', 'destinations remove', 'dlq redrive', 'menus publish']),
      );
      const names = listed.map((c) => c.name);
      for (const { name, flags } of documented) {
        expect(names, name).toContain(name);
        const inHelp = new Set(listed.find((c) => c.name === name)!.flags.map(([flag]) => flag));
        for (const flag of flags) expect(inHelp.has(flag) || GLOBAL_FLAGS.includes(flag), `${name} --${flag}`).toBe(true);
      }
    });
  });

  describe('apps', () => {
    it('create prints the client secret once as JSON and stores only its hash', async () => {
      const run = await admin([
        'apps',
        'create',
        '--group',
        'demo-group',
        '--scopes',
        'locations:read,bevq:read',
        '--name',
        'Ops test',
        '--owner-email',
        'ops@example.com',
        '--rate-limit',
        '120',
        '--json',
      ]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(Object.keys(run.json).sort()).toEqual(['app', 'clientSecret']);
      const { app, clientSecret } = run.json;
      expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(app).not.toHaveProperty('secretHash');
      expect(app).toMatchObject({
        groupId: 'demo-group',
        name: 'Ops test',
        scopes: ['locations:read', 'bevq:read'],
        allowedLocationIds: null,
        rateLimitPerMinute: 120,
        ownerEmail: 'ops@example.com',
        status: 'active',
        credentialType: 'client_credentials',
        tokenPrefix: '',
        expiresAt: null,
      });

      const stored = await runtime.store.apps.get(app.clientId);
      expect(stored?.secretHash).toBe(sha256Hex(clientSecret));
      expect(Object.values(stored!)).not.toContain(clientSecret);
      expect(JSON.stringify(await snapshot())).not.toContain(clientSecret);
    });

    it('create --locations limits the app to existing locations; the human output says the secret is shown once', async () => {
      const run = await admin([
        'apps',
        'create',
        '--group',
        'demo-group',
        '--scopes',
        'shiftq:read',
        '--locations',
        'nyc-midtown,london-soho',
      ]);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/shown only now/);
      const clientId = run.stdout.match(/client_id\s+(app_\w+)/)?.[1];
      const secret = run.stdout.match(/client_secret\s+(\S+)/)?.[1];
      const stored = await runtime.store.apps.get(clientId!);
      expect(stored).toMatchObject({ allowedLocationIds: ['nyc-midtown', 'london-soho'], name: 'demo-group app' });
      expect(stored?.secretHash).toBe(sha256Hex(secret!));
    });

    it('list shows every application and never a secret hash', async () => {
      const run = await admin(['apps', 'list', '--json']);
      expect(run.code).toBe(0);
      // Group by group, oldest first within each.
      const stored = (await scanTable(runtime))
        .filter((i) => i.SK === 'APP')
        .sort((a, b) => `${a.groupId}\n${a.createdAt}#${a.clientId}`.localeCompare(`${b.groupId}\n${b.createdAt}#${b.clientId}`));
      expect(run.json.apps.map((a: { clientId: string }) => a.clientId)).toEqual(stored.map((a) => a.clientId));
      expect(run.stdout).not.toContain('secretHash');
      for (const app of stored) if (app.secretHash) expect(run.stdout).not.toContain(app.secretHash);
    });

    it('revoke marks the application revoked, and list shows it', async () => {
      const { clientId } = await newApp(runtime);
      const revoke = await admin(['apps', 'revoke', clientId, '--json']);
      expect(revoke.code).toBe(0);
      expect(revoke.json).toEqual({ revoked: clientId });
      expect(await runtime.store.apps.get(clientId)).toMatchObject({ status: 'revoked', revokedAt: expect.any(String) });

      const list = await admin(['apps', 'list', '--group', 'demo-group']);
      expect(list.code).toBe(0);
      expect(list.stdout.split('\n').find((line) => line.startsWith(clientId))).toMatch(/\brevoked\b/);
    });

    it('create-legacy prints the legacy credential once; show displays only its prefix', async () => {
      const run = await admin(['apps', 'create-legacy', '--group', 'demo-group', '--scopes', 'bevq:read', '--json']);
      expect(run.code).toBe(0);
      expect(Object.keys(run.json).sort()).toEqual(['app', 'legacyCredential']);
      const { app, legacyCredential } = run.json;
      expect(legacyCredential.startsWith(LEGACY_PREFIX)).toBe(true);
      expect(app.credentialType).toBe('legacy_bearer');
      expect(legacyCredential.startsWith(app.tokenPrefix)).toBe(true);
      expect(app.tokenPrefix.length).toBeGreaterThan(LEGACY_PREFIX.length);
      expect(app.tokenPrefix.length).toBeLessThanOrEqual(LEGACY_PREFIX.length + 8);
      const table = JSON.stringify(await snapshot());
      expect(table).not.toContain(legacyCredential);
      expect(table).toContain(sha256Hex(legacyCredential));

      const show = await admin(['apps', 'show', app.clientId, '--json']);
      expect(show.code).toBe(0);
      expect(show.json).toEqual({ app });
      expect(show.stdout).not.toContain(legacyCredential);
    });
  });

  describe('menus', () => {
    it('menus show prints the published menu as a file menus publish takes back unchanged; a location without one is exit 2', async () => {
      await publishMenu(runtime.deps, { groupId: 'demo-group', locationId: 'denver-union', menu: sampleMenu({ price: 17 }) });
      const shown = await admin(['menus', 'show', '--group', 'demo-group', '--location', 'denver-union']);
      expect(shown.code, shown.stderr).toBe(0);
      const stored = (await runtime.store.menus.get('demo-group', 'denver-union'))!.menu;
      expect(JSON.parse(shown.stdout)).toEqual(stored);
      const file = writeFile('shown-menu.json', shown.stdout);
      const again = await admin(['menus', 'publish', '--group', 'demo-group', '--location', 'denver-union', '--file', file, '--json']);
      expect(again.json).toMatchObject({ revision: stored.revision, newRevision: false });
      await refused(
        ['menus', 'show', '--group', 'demo-group', '--location', 'no-such-place'],
        /no menu is published for demo-group\/no-such-place/,
      );
    });
  });

  describe('groups and locations', () => {
    it('groups put creates a group and groups list shows it', async () => {
      const put = await admin(['groups', 'put', '--id', 'ops-group', '--name', 'Ops Group', '--json']);
      expect(put.code).toBe(0);
      expect(put.json.group).toMatchObject({ groupId: 'ops-group', name: 'Ops Group' });
      expect(await runtime.store.groups.get('ops-group')).toEqual(put.json.group);

      const list = await admin(['groups', 'list']);
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(/^ops-group\s+Ops Group\s/m);
      expect(list.stdout).toMatch(/^demo-group\s+Demo Hospitality Group\s/m);
    });

    it('locations put enables only the listed modules and locations list shows it', async () => {
      await fixtureGroup(runtime.store, { groupId: 'loc-group', name: 'Location Group' }, Date.now());
      const put = await admin([
        'locations',
        'put',
        '--group',
        'loc-group',
        '--id',
        'ops-1',
        ...LOCATION_FLAGS,
        '--status',
        'inactive',
        '--modules',
        'shiftq,bevq',
        '--json',
      ]);
      expect(put.code).toBe(0);
      const expected = {
        groupId: 'loc-group',
        id: 'ops-1',
        name: 'Ops One',
        locationShortName: 'One',
        timezone: 'America/Chicago',
        slug: 'ops-one',
        status: 'inactive',
        modulesEnabled: { shiftq: true, sportsq: false, matriq: false, campaigns: false, orderboard: false, bevq: true },
      };
      expect(put.json.location).toMatchObject(expected);
      expect(await runtime.store.locations.get('loc-group', 'ops-1')).toMatchObject(expected);

      const list = await admin(['locations', 'list', '--group', 'loc-group', '--json']);
      expect(list.code).toBe(0);
      expect(list.json).toEqual({ locations: [put.json.location] });
    });

    it('venues load writes every group and location of the file', async () => {
      const file = writeFile('venues.json', JSON.stringify(venueFile('venue-group', 'Europe/Paris')));
      const run = await admin(['venues', 'load', '--file', file, '--json']);
      expect(run.code).toBe(0);
      expect(run.json.groups).toHaveLength(1);
      expect(await runtime.store.groups.get('venue-group')).toMatchObject({ name: 'Venue Group' });
      const locations = await runtime.store.locations.list('venue-group');
      expect(locations.map((l) => [l.id, l.timezone, l.modulesEnabled.bevq])).toEqual([
        ['v-1', 'America/New_York', true],
        ['v-2', 'Europe/Paris', false],
      ]);
    });
  });

  describe('bad input is refused with exit 2 and changes nothing', () => {
    it('an unknown scope', async () => {
      await refused(['apps', 'create', '--group', 'demo-group', '--scopes', 'locations:read,nope:read'], /scopes/);
    });

    it('an unknown group', async () => {
      await refused(['apps', 'create', '--group', 'no-such-group', '--scopes', 'locations:read'], /group no-such-group does not exist/);
    });

    it('an unknown location in --locations', async () => {
      await refused(
        ['apps', 'create', '--group', 'demo-group', '--scopes', 'locations:read', '--locations', 'nyc-midtown,atlantis'],
        /unknown locations in demo-group: atlantis/,
      );
    });

    it('a time zone that does not exist', async () => {
      await refused(
        [
          'locations',
          'put',
          '--group',
          'demo-group',
          '--id',
          'mars',
          ...LOCATION_FLAGS.slice(0, 4),
          '--timezone',
          'Mars/Base',
          '--slug',
          'mars',
        ],
        /timezone/,
      );
      expect(await runtime.store.locations.get('demo-group', 'mars')).toBeNull();
    });

    it('a venue file that is not JSON', async () => {
      const file = writeFile('broken.json', '{"groups": [');
      await refused(['venues', 'load', '--file', file], /not valid JSON/);
    });

    it('a venue file with a location name of zero-width spaces or a short name with a Hangul filler: nothing written', async () => {
      for (const [field, value] of [
        ['name', '\u200b\u200b'],
        ['locationShortName', 'First\u3164'],
      ] as const) {
        const venues = venueFile('invisible-group', 'Europe/Paris');
        venues.groups[0]!.locations[1]![field] = value;
        const file = writeFile('invisible.json', JSON.stringify(venues));
        await refused(['venues', 'load', '--file', file], new RegExp(`${field} must not contain invisible characters`));
      }
      expect(await runtime.store.groups.get('invisible-group')).toBeNull();
    });

    it('a venue file whose last location is invalid: no group from it is written', async () => {
      const file = writeFile('partial.json', JSON.stringify(venueFile('partial-group', 'Mars/Base')));
      await refused(['venues', 'load', '--file', file], /timezone/);
      expect(await runtime.store.groups.get('partial-group')).toBeNull();
      expect(await runtime.store.locations.list('partial-group')).toEqual([]);
    });

    it('an unknown flag, in one line and a hint, not the whole usage', async () => {
      const run = await refused(['groups', 'put', '--id', 'flag-group', '--name', 'Flag', '--colour', 'red'], /--colour/);
      expect(run.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^error: .*--colour/), 'npm run admin -- --help for usage']);
      expect(await runtime.store.groups.get('flag-group')).toBeNull();
    });

    it('a missing required flag', async () => {
      await refused(
        ['locations', 'put', '--group', 'demo-group', '--id', 'no-tz', '--name', 'No TZ', '--short-name', 'N', '--slug', 'no-tz'],
        /needs --timezone/,
      );
      expect(await runtime.store.locations.get('demo-group', 'no-tz')).toBeNull();
    });

    it('revoking an unknown application', async () => {
      await refused(['apps', 'revoke', 'app_doesnotexist'], /application app_doesnotexist does not exist/);
    });
  });

  describe('the audit trail', () => {
    it('records each change the CLI makes, through the admin API, with its parameters and never a secret; a refusal records nothing', async () => {
      const since = new Date().toISOString();
      expect((await admin(['groups', 'put', '--id', 'audit-group', '--name', 'Audit Group'])).code).toBe(0);
      const location = [
        ...['locations', 'put', '--group', 'audit-group', '--id', 'audit-1', '--name', 'Audit One', '--short-name', 'A1'],
        ...['--timezone', 'Europe/London', '--slug', 'audit-one', '--modules', 'bevq,shiftq'],
      ];
      expect((await admin(location)).code).toBe(0);
      const scopes = ['--scopes', 'locations:read,bevq:read'];
      const created = await admin(['apps', 'create', '--group', 'audit-group', ...scopes, '--locations', 'audit-1', '--json']);
      const clientId = created.json.app.clientId as string;
      const rotated = await admin(['apps', 'rotate-secret', clientId, '--overlap-hours', '5', '--end-old-tokens', '--json']);
      await refused(['apps', 'create', '--group', 'audit-group', '--scopes', 'nope:read'], /nope:read/);

      const { status, body } = await adminCall(runtime, 'GET', '/audit?limit=20');
      expect(status).toBe(200);
      const mine = (body.entries as { at: string; groupId: string | null; clientId: string | null }[]).filter(
        (e) => e.at >= since && (e.groupId === 'audit-group' || e.clientId === clientId),
      );
      expect(mine.reverse()).toEqual([
        expect.objectContaining({ operation: 'putGroup', actor: 'local-admin-key', details: { name: 'Audit Group' } }),
        expect.objectContaining({
          operation: 'putLocation',
          locationId: 'audit-1',
          details: { name: 'Audit One', status: 'active', timezone: 'Europe/London', slug: 'audit-one', modules: ['shiftq', 'bevq'] },
        }),
        expect.objectContaining({
          operation: 'createApp',
          clientId,
          details: expect.objectContaining({
            scopes: ['locations:read', 'bevq:read'],
            locations: ['audit-1'],
            credentialType: 'client_credentials',
          }),
        }),
        expect.objectContaining({
          operation: 'rotateClientSecret',
          clientId,
          details: { overlapHours: 5, oldTokensEndAt: rotated.json.app.previousSecretExpiresAt },
        }),
      ]);
      const trail = JSON.stringify(body);
      for (const secret of [created.json.clientSecret, rotated.json.clientSecret]) expect(trail).not.toContain(secret);
    });

    it('records each load with its counts; a refused load changes nothing and records nothing', async () => {
      const since = new Date().toISOString();
      expect(
        (await admin(['venues', 'load', '--file', writeFile('audit-venues.json', JSON.stringify(venueFile('audit-load', 'Europe/Paris')))]))
          .code,
      ).toBe(0);
      // A day before yesterday in UTC is a past business date in every time zone.
      const businessDate = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
      const labor = { kind: 'labor', businessDate, data: { updatedAt: new Date().toISOString(), currency: 'USD', roles: [] } };
      const entries = [...JSON.parse(readFileSync(join(ROOT, 'examples/data/shiftq.json'), 'utf8')).entries, labor];
      const shiftq = await admin([
        'shiftq',
        'load',
        '--group',
        'audit-load',
        '--location',
        'v-1',
        '--file',
        writeFile('audit-shiftq.json', JSON.stringify({ entries })),
      ]);
      expect(shiftq.code, shiftq.stderr).toBe(0);
      await refused(
        ['venues', 'load', '--file', writeFile('audit-refused.json', JSON.stringify(venueFile('audit-refused', 'Mars/Base')))],
        /timezone/,
      );

      const { body } = await adminCall(runtime, 'GET', '/audit?limit=20');
      const loads = (body.entries as { at: string; operation: string }[]).filter((e) => e.at >= since && e.operation.startsWith('load'));
      expect(loads.reverse()).toEqual([
        expect.objectContaining({ operation: 'loadVenues', actor: 'local-admin-key', groupId: null, details: { groups: 1, locations: 2 } }),
        expect.objectContaining({
          operation: 'loadShiftq',
          groupId: 'audit-load',
          locationId: 'v-1',
          details: { entries: 3, records: 3, kinds: ['employees', 'posMenu', 'labor'], businessDates: [businessDate] },
        }),
      ]);
    });
  });

  describe('target and failures', () => {
    it('says how to start the local runtime when none is running', async () => {
      const run = await admin(['groups', 'list'], { CUSTOMER_API_RUNTIME_FILE: join(dir, 'missing.json') });
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toBe(
        'error: no local runtime is running on this data folder: start it with `npm start`, or pass --port (a runtime elsewhere or in memory) or --stage',
      );
    });

    it('reports an unexpected error in one line with exit 1', async () => {
      // An admin API that answers 200 with something other than JSON: nothing the CLI expects.
      const odd = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'));
      await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
      try {
        const file = runtimeFileFor(runtime, dir, 'odd.json', { url: `http://127.0.0.1:${(odd.address() as AddressInfo).port}` });
        const run = await admin(['groups', 'list'], { CUSTOMER_API_RUNTIME_FILE: file });
        expect(run.code).toBe(1);
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
        expect(run.stderr).toMatch(/^unexpected error: /);
        expect(run.stdout).toBe('');
      } finally {
        odd.close();
      }
    });
  });
});

/** A venue file with one group and two locations; the second takes the given time zone. */
function venueFile(groupId: string, secondTimeZone: string) {
  const modules = { shiftq: true, sportsq: false, matriq: false, campaigns: false, orderboard: false, bevq: true };
  return {
    groups: [
      {
        groupId,
        name: 'Venue Group',
        locations: [
          { id: 'v-1', name: 'First', locationShortName: 'First', timezone: 'America/New_York', slug: 'first', modulesEnabled: modules },
          {
            id: 'v-2',
            name: 'Second',
            locationShortName: 'Second',
            timezone: secondTimeZone,
            slug: 'second',
            modulesEnabled: { ...modules, bevq: false },
          },
        ],
      },
    ],
  };
}
