import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startDynamoDbLocal, type DynamoDbLocal } from '#local/dynamodb-local';
import { LOCK_FILE } from '#local/start-checks';
import { bannerFileOf, type RuntimeFile } from '#local/runtime-file';
import { TEST_DYNAMODB_ENDPOINT } from '../support/runtime.js';
import { toolPath, TOOLS } from '../support/tools.js';
import { PATIENCE_MS } from '../support/eventually.js';

/**
 * `npm start` (bin/local.ts) as real processes, on what goes wrong around it: a second start on the same data
 * folder, a busy port, an old data folder on a fresh external engine, the commands docs/development.md gives; and what it
 * exposes (every socket it listens on is loopback). The tests run in order on one data folder: the first start
 * (`plain`) is what the later ones find already running, then the "earlier plain npm start" of the external runs.
 */
const ROOT = new URL('../..', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'customer-api-start-'));
const dataDir = join(scratch, 'data');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The first start on the engine under test, as local-runtime.test.ts does.
const engineEnv: Record<string, string> = TEST_DYNAMODB_ENDPOINT
  ? { DYNAMODB_ENDPOINT: TEST_DYNAMODB_ENDPOINT, TABLE_NAME: `customer-api-lock-${process.pid}` }
  : {};

type Run = { child: ChildProcess; output: () => string; exited: Promise<number | null>; runtimeFile?: string };

/** bin/local.ts under tsx, as `npm start` runs it (no npm in between: its pid is the runtime's). */
let runs = 0;
function run(args: string[], env: Record<string, string> = {}): Run {
  const runtimeFile = join(scratch, `runtime-${++runs}.json`);
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'SILENT', CUSTOMER_API_RUNTIME_FILE: runtimeFile, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { ...collect(child), runtimeFile };
}

function collect(child: ChildProcess): Run {
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

type Banner = { url: string; clientId: string; clientSecret: string; adminKey: string };

/** Waits for the banner (with its demo credentials) and reads it. */
async function banner(started: Run, timeoutMs = PATIENCE_MS): Promise<Banner> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const output = started.output();
    const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
    if (url && output.includes('curl -s')) {
      const found = {
        url,
        clientId: /client_id +(\S+)/.exec(output)![1]!,
        clientSecret: /client_secret +(\S+)/.exec(output)![1]!,
        adminKey: /Authorization: Bearer (\S+);/.exec(output)![1]!,
      };
      // The line the docs' snippets read their environment from (test/e2e/snippets.test.ts) names the same values.
      expect(output).toMatch(`export API_URL=${url} CLIENT_ID=${found.clientId} CLIENT_SECRET=${found.clientSecret} ADMIN_API_KEY=`);
      return found;
    }
    if (started.child.exitCode !== null || Date.now() > deadline) throw new Error(`no banner (exit ${started.child.exitCode}):\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The printed credentials work: a token, then the demo group's locations with it. */
async function demoLocations({ url, clientId, clientSecret }: Banner): Promise<{ status: number; ids: string[] }> {
  const issued = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  const { access_token } = (await issued.json()) as { access_token: string };
  const listed = await fetch(`${url}/v1/demo-group/locations`, { headers: { Authorization: `Bearer ${access_token}` } });
  const body = (await listed.json()) as { data?: { locations?: { id: string }[] } };
  return { status: listed.status, ids: (body.data?.locations ?? []).map((location) => location.id) };
}

async function interrupt(started: Run): Promise<number | null> {
  if (started.child.exitCode === null) started.child.kill('SIGINT');
  return started.exited;
}

/** The one line a refused start prints (npm's own notices aside), and its exit code. */
async function refusal(started: Run): Promise<{ code: number | null; lines: string[] }> {
  // A refused start exits by itself; the bound only ends one that hangs (a busy machine starts slowly).
  let bound: NodeJS.Timeout | undefined;
  const code = await Promise.race([started.exited, new Promise<'running'>((r) => (bound = setTimeout(() => r('running'), PATIENCE_MS)))]);
  clearTimeout(bound);
  if (code === 'running') {
    await interrupt(started);
    throw new Error(`still running after ${PATIENCE_MS / 1000} s:\n${started.output()}`);
  }
  return {
    code,
    lines: started
      .output()
      .split('\n')
      .filter((line) => line.trim() !== ''),
  };
}

/**
 * The addresses a process listens on over TCP: its socket inodes (/proc/<pid>/fd) matched against the LISTEN
 * rows (state 0A) of /proc/net/tcp and /proc/net/tcp6, addresses decoded from the kernel's hex.
 */
function listeningAddresses(pid: number): { address: string; port: number }[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // closed meanwhile
    }
  }
  const found: { address: string; port: number }[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const row of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = row.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== '0A' || !inodes.has(fields[9]!)) continue;
      const [hex, port] = fields[1]!.split(':') as [string, string];
      found.push({ address: decodeAddress(hex), port: parseInt(port, 16) });
    }
  }
  return found;
}

/** The kernel prints an address as 32-bit words in host (little-endian) order. */
function decodeAddress(hex: string): string {
  const bytes = (hex.match(/.{8}/g) ?? []).flatMap((word) => (word.match(/../g) ?? []).reverse().map((byte) => parseInt(byte, 16)));
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return `::ffff:${bytes.slice(12).join('.')}`;
  // Only the forms that matter here are shortened: :: (any address) and ::1 (loopback); the rest stay full.
  if (bytes.slice(0, 15).every((b) => b === 0)) return `::${bytes[15] ? bytes[15].toString(16) : ''}`;
  return Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16)).join(':');
}

const isLoopback = (address: string) => address === '::1' || /^(::ffff:)?127\./.test(address);

describe('npm start says what is wrong, in one line', () => {
  let plain: Run;
  let first: Banner;
  let firstInbox: string | undefined;
  beforeAll(async () => {
    // A folder an older start left open to everyone, as .data/ was.
    mkdirSync(join(dataDir, 'dynamodb'), { recursive: true, mode: 0o755 });
    writeFileSync(join(dataDir, 'notes.txt'), 'left here\n', { mode: 0o644 });
    plain = run(['--data', dataDir], engineEnv);
    first = await banner(plain);
    firstInbox = (JSON.parse(readFileSync(plain.runtimeFile!, 'utf8')) as RuntimeFile).webhookListenInbox;
  });
  afterAll(async () => {
    if (plain) await interrupt(plain);
  });

  it('listens on loopback only: every socket the runtime listens on is 127.0.0.1 or ::1', () => {
    expect(decodeAddress('0100007F')).toBe('127.0.0.1');
    expect(decodeAddress('00000000000000000000000001000000')).toBe('::1');
    expect(decodeAddress('00000000')).toBe('0.0.0.0');
    expect(decodeAddress('00000000000000000000000000000000')).toBe('::');
    const runtimeFile = JSON.parse(readFileSync(plain.runtimeFile!, 'utf8')) as RuntimeFile;
    const listening = listeningAddresses(plain.child.pid!);
    const ports = listening.map((socket) => socket.port);
    // Each engine of this start is among them: the gateway, fauxqs (which binds 0.0.0.0 by itself), SES, dynalite.
    expect(ports).toContain(Number(new URL(first.url).port));
    expect(ports).toContain(Number(new URL(runtimeFile.sqsEndpoint).port));
    expect(ports).toContain(Number(new URL(runtimeFile.sesEndpoint).port));
    if (!runtimeFile.externalDynamo) expect(ports).toContain(Number(new URL(runtimeFile.dynamoEndpoint).port));
    expect(listening.filter((socket) => !isLoopback(socket.address))).toEqual([]);
  });

  it('keeps its data owner-only: the data folder and all in it 0700/0600, older content too, and the runtime file 0600', () => {
    const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
    expect(mode(dataDir)).toBe('700');
    expect(mode(join(dataDir, 'dynamodb'))).toBe('700');
    for (const file of ['notes.txt', 'demo-credentials.json', LOCK_FILE]) expect(mode(join(dataDir, file)), file).toBe('600');
    expect(mode(plain.runtimeFile!)).toBe('600');
  });

  it('writes its banner, secrets and all, to an owner-only file beside the runtime file, and names it', () => {
    const file = bannerFileOf(plain.runtimeFile!);
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    const written = readFileSync(file, 'utf8');
    expect(written).toContain(`client_secret ${first.clientSecret}`);
    expect(written).toContain(`Bearer ${first.adminKey};`);
    expect(plain.output()).toContain(written.trim());
    expect(written).toContain(`  Banner   ${file} (`);
  });

  it('makes the default .local/ 0700 and its runtime file 0600 at every start, over an older open one', async () => {
    const cwd = join(scratch, 'checkout');
    mkdirSync(join(cwd, '.local'), { recursive: true, mode: 0o755 });
    writeFileSync(join(cwd, '.local', 'runtime-port-1.json'), '{}\n', { mode: 0o644 });
    // writeRuntimeFile as bin/local.ts calls it, in a process whose working folder is that checkout.
    const { CUSTOMER_API_RUNTIME_FILE: _moved, ...env } = process.env;
    const script = `const { runtimeFileOf, writeRuntimeFile } = await import(${JSON.stringify(join(ROOT, 'local/runtime-file.ts'))}); writeRuntimeFile(runtimeFileOf(null, 1), {});`;
    const child = spawn(
      process.execPath,
      ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href, '--input-type=module', '-e', script],
      {
        cwd,
        env,
        stdio: 'inherit',
      },
    );
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0);
    const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
    expect([mode(join(cwd, '.local')), mode(join(cwd, '.local', 'runtime-port-1.json'))]).toEqual(['700', '600']);
  });

  it('a second start on the same data folder names the running one (pid, URL), exits 1, and the first still answers', async () => {
    const lock = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as { pid: number; url: string };
    expect(lock).toMatchObject({ pid: plain.child.pid, url: first.url });
    const { code, lines } = await refusal(run(['--data', dataDir], engineEnv));
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`already running on ${dataDir} (pid ${plain.child.pid}, ${first.url})`);
    expect(await demoLocations(first)).toMatchObject({ status: 200 });
  });

  it('a busy port is one line naming it, and exit 1', async () => {
    const port = new URL(first.url).port;
    const { code, lines } = await refusal(run(['--in-memory'], { PORT: port }));
    expect(code).toBe(1);
    expect(lines).toEqual([`npm start: port ${port} is in use: set PORT=… or stop what listens there`]);
  });

  it('stops cleanly, releasing the data folder and removing its runtime and banner files', async () => {
    expect(await interrupt(plain)).toBe(0);
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    expect([existsSync(plain.runtimeFile!), existsSync(bannerFileOf(plain.runtimeFile!))]).toEqual([false, false]);
  });

  // The next two start a DynamoDB Local of their own, whichever engine the run is on: once is enough, in the dynalite
  // run, which is also the user's case (a folder first used with the embedded engine).
  const ownEngine = it.skipIf(TEST_DYNAMODB_ENDPOINT !== undefined);

  ownEngine('an old data folder on a fresh external engine (DynamoDB Local): seeds it, and the printed credentials work', async () => {
    const engine: DynamoDbLocal = await startDynamoDbLocal(toolPath(TOOLS.java));
    try {
      const external = run(['--data', dataDir], {
        DYNAMODB_ENDPOINT: engine.endpoint,
        AWS_ACCESS_KEY_ID: engine.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: engine.credentials.secretAccessKey,
      });
      try {
        const printed = await banner(external);
        expect(printed.clientId).not.toBe(first.clientId); // a new demo application, in the engine that holds it
        // The folder's admin key is kept across restarts: a console tab or script holding it goes on working.
        expect(printed.adminKey).toBe(first.adminKey);
        // And its listen inbox's port: a `npm run listen` left running goes on receiving.
        expect((JSON.parse(readFileSync(external.runtimeFile!, 'utf8')) as RuntimeFile).webhookListenInbox).toBe(firstInbox);
        expect(firstInbox).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
        expect(
          (await fetch(`${printed.url}/admin/v1/apps?limit=1`, { headers: { Authorization: `Bearer ${printed.adminKey}` } })).status,
        ).toBe(200);
        const { status, ids } = await demoLocations(printed);
        expect(status).toBe(200);
        expect(ids).toContain('nyc-midtown');
      } finally {
        expect(await interrupt(external)).toBe(0);
      }
    } finally {
      await engine.stop();
    }
  });

  ownEngine(
    'runs docs/development.md\'s "Running against other engines" commands as written, after a plain start, and answers',
    async () => {
      const page = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
      expect(page).toContain('\n## Running against other engines\n');
      const section = page.slice(page.indexOf('## Running against other engines'));
      const commands = /```sh\n([\s\S]*?)```/.exec(section.slice(0, section.indexOf('\n## ', 3)))?.[1];
      expect(commands).toContain('DYNAMODB_ENDPOINT=http://localhost:8000 npm start');
      // Free ports for the page's 8000 (and PORT for its 3000); the folder and runtime file through their variables.
      const script = commands!.replaceAll('8000', String(await freePort()));
      const runtimeFile = join(scratch, 'readme-runtime.json');
      const shell = collect(
        spawn('bash', ['-c', script], {
          cwd: ROOT,
          detached: true, // its own process group: npm, tsx, the runtime and the backgrounded jar stop together
          env: {
            ...process.env,
            PATH: `${dirname(toolPath(TOOLS.java))}:${process.env.PATH}`,
            PORT: String(await freePort()),
            CUSTOMER_API_DATA_DIR: dataDir,
            CUSTOMER_API_RUNTIME_FILE: runtimeFile,
            LOG_LEVEL: 'SILENT',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
      const group = shell.child.pid!;
      try {
        const printed = await banner(shell);
        expect(shell.output()).toContain(`(data in ${dataDir})`);
        const { status, ids } = await demoLocations(printed);
        expect(status).toBe(200);
        expect(ids).toContain('nyc-midtown');
      } finally {
        await stopGroup(group);
      }
    },
  );
});

/** SIGTERM to the whole group (npm forwards it; the jar stops on it), then SIGKILL to what is left after 10 s. */
async function stopGroup(group: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(-group, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (alive()) process.kill(-group, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (alive()) process.kill(-group, 'SIGKILL');
}

describe('one runtime file per runtime', () => {
  const checkout = join(scratch, 'two-runtimes');
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const { CUSTOMER_API_RUNTIME_FILE: _moved, CUSTOMER_API_DATA_DIR: _data, ...env } = process.env;
  /** A program of this repository run from another working folder, as a checkout of it would run it. */
  const spawnHere = (program: string, args: string[]) =>
    spawn(process.execPath, ['--import', tsx, join(ROOT, program), ...args], {
      cwd: checkout,
      // The relative certificate path of the npm scripts would not resolve from another folder.
      env: { ...env, NODE_EXTRA_CA_CERTS: join(ROOT, 'test/fixtures/tls/ca.pem'), PORT: '0', LOG_LEVEL: 'SILENT' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const admin = async (args: string[]) => {
    const child = collect(spawnHere('bin/admin.ts', args));
    return { code: await child.exited, output: child.output() };
  };
  const files = () => readdirSync(join(checkout, '.local')).sort();

  it('records each runtime under its own name; the CLI finds the data folder’s, or the one on --port; a runtime removes only its own', async () => {
    mkdirSync(checkout, { recursive: true });
    const onFolder = collect(spawnHere('bin/local.ts', []));
    const inMemory = collect(spawnHere('bin/local.ts', ['--in-memory']));
    try {
      const [folderBanner, memoryBanner] = await Promise.all([banner(onFolder), banner(inMemory)]);
      const memoryPort = new URL(memoryBanner.url).port;
      // Each with its banner beside it.
      expect(files()).toEqual([
        expect.stringMatching(/^runtime-data-[0-9a-f]{12}\.banner\.txt$/),
        expect.stringMatching(/^runtime-data-[0-9a-f]{12}\.json$/),
        `runtime-port-${memoryPort}.banner.txt`,
        `runtime-port-${memoryPort}.json`,
      ]);

      const found = await admin(['groups', 'list', '--debug']);
      expect(found.code, found.output).toBe(0);
      expect(found.output).toContain(`target: local runtime ${folderBanner.url} (`);
      const byPort = await admin(['groups', 'list', '--debug', '--port', memoryPort]);
      expect(byPort.code, byPort.output).toBe(0);
      expect(byPort.output).toContain(`target: local runtime ${memoryBanner.url} (`);

      expect(await interrupt(inMemory)).toBe(0);
      expect(files()).toEqual([expect.stringMatching(/^runtime-data-.+\.banner\.txt$/), expect.stringMatching(/^runtime-data-.+\.json$/)]);
      const still = await admin(['groups', 'list', '--debug']);
      expect(still.output).toContain(`target: local runtime ${folderBanner.url} (`);
      const gone = await admin(['groups', 'list', '--port', memoryPort]);
      expect([gone.code, gone.output.trim()]).toEqual([2, `error: no local runtime is running on port ${memoryPort}`]);
    } finally {
      await Promise.all([interrupt(onFolder), interrupt(inMemory)]);
    }
  });
});
