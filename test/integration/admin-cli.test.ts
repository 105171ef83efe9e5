import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_PREFIX } from '#lambdas/admin/apps';
import { putGroup } from '#lib/ingest/venues';
import { sha256Hex } from '#domain/crypto';
import { COMMANDS } from '#lib/admin-cli/commands';
import { usage } from '#lib/admin-cli/usage';
import type { LocalRuntime } from '#lib/local/runtime';
import { newApp, scanTable, startTestRuntime } from '../support/runtime.js';
import { admin as runAdmin, runtimeFileFor, type Run } from '../fixtures/admin-cli.js';

/** The admin CLI as ops run it: a real subprocess against a real local runtime, checked through the store. */

let runtime: LocalRuntime;
let dir: string;
let runtimeFile: string;

beforeAll(async () => {
  runtime = await startTestRuntime();
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
  expect(await snapshot()).toEqual(before);
  return run;
}

const LOCATION_FLAGS = ['--name', 'Ops One', '--short-name', 'One', '--timezone', 'America/Chicago', '--slug', 'ops-one'];

describe('admin CLI', { timeout: 60_000 }, () => {
  it('prints the usage for help, derived from the command table', async () => {
    const run = await admin(['help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${usage(COMMANDS)}\n`);
    for (const c of COMMANDS) expect(run.stdout).toContain(`  ${c.name}`);
  });

  describe('apps', () => {
    it('create prints the client secret once as JSON and stores only its hash', async () => {
      const run = await admin([
        'apps', 'create', '--group', 'demo-group', '--scopes', 'locations:read,bevq:read',
        '--name', 'Ops test', '--owner-email', 'ops@example.com', '--rate-limit', '120', '--json',
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
        'apps', 'create', '--group', 'demo-group', '--scopes', 'shiftq:read', '--locations', 'nyc-midtown,london-soho',
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
      await putGroup(runtime.store, { groupId: 'loc-group', name: 'Location Group' }, Date.now());
      const put = await admin([
        'locations', 'put', '--group', 'loc-group', '--id', 'ops-1', ...LOCATION_FLAGS,
        '--status', 'inactive', '--modules', 'shiftq,bevq', '--json',
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
        ['locations', 'put', '--group', 'demo-group', '--id', 'mars', ...LOCATION_FLAGS.slice(0, 4), '--timezone', 'Mars/Base', '--slug', 'mars'],
        /timezone/,
      );
      expect(await runtime.store.locations.get('demo-group', 'mars')).toBeNull();
    });

    it('a venue file that is not JSON', async () => {
      const file = writeFile('broken.json', '{"groups": [');
      await refused(['venues', 'load', '--file', file], /not valid JSON/);
    });

    it('a venue file whose last location is invalid: no group from it is written', async () => {
      const file = writeFile('partial.json', JSON.stringify(venueFile('partial-group', 'Mars/Base')));
      await refused(['venues', 'load', '--file', file], /timezone/);
      expect(await runtime.store.groups.get('partial-group')).toBeNull();
      expect(await runtime.store.locations.list('partial-group')).toEqual([]);
    });

    it('an unknown flag, with the usage text', async () => {
      const run = await refused(['groups', 'put', '--id', 'flag-group', '--name', 'Flag', '--colour', 'red'], /--colour/);
      expect(run.stderr).toContain('Usage: npm run admin');
      expect(await runtime.store.groups.get('flag-group')).toBeNull();
    });

    it('a missing required flag', async () => {
      await refused(['locations', 'put', '--group', 'demo-group', '--id', 'no-tz', '--name', 'No TZ', '--short-name', 'N', '--slug', 'no-tz'], /needs --timezone/);
      expect(await runtime.store.locations.get('demo-group', 'no-tz')).toBeNull();
    });

    it('revoking an unknown application', async () => {
      await refused(['apps', 'revoke', 'app_doesnotexist'], /application app_doesnotexist does not exist/);
    });
  });

  describe('target and failures', () => {
    it('says how to start the local runtime when none is running', async () => {
      const run = await admin(['groups', 'list'], { CUSTOMER_API_RUNTIME_FILE: join(dir, 'missing.json') });
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toBe('error: the local runtime is not running: start it with `npm start`, or pass --stage');
    });

    it('reports an unexpected error in one line with exit 1', async () => {
      const file = runtimeFileFor(runtime, dir, 'dead.json', { dynamoEndpoint: 'http://127.0.0.1:9' });
      const run = await admin(['groups', 'list'], { CUSTOMER_API_RUNTIME_FILE: file });
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^unexpected error: /);
      expect(run.stdout).toBe('');
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
          { id: 'v-2', name: 'Second', locationShortName: 'Second', timezone: secondTimeZone, slug: 'second', modulesEnabled: { ...modules, bevq: false } },
        ],
      },
    ],
  };
}
