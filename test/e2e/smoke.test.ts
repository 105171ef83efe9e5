import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DYNAMODB_ENDPOINT } from '../support/runtime.js';

const ROOT = new URL('../..', import.meta.url).pathname;
// On the engine under test: with TEST_DYNAMODB_ENDPOINT, `npm start` runs as `DYNAMODB_ENDPOINT=… npm start`.
const engineEnv = TEST_DYNAMODB_ENDPOINT
  ? { DYNAMODB_ENDPOINT: TEST_DYNAMODB_ENDPOINT, TABLE_NAME: `customer-api-smoke-${process.pid}` }
  : {};

let server: ChildProcess;
let url: string;
let clientId: string;
let clientSecret: string;

/** The real `npm start` entry point, in memory on a free port, until it prints its banner. */
beforeAll(async () => {
  server = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts', '--in-memory'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...engineEnv,
      PORT: '0',
      LOG_LEVEL: 'SILENT',
      // Its own runtime file, so a developer's running `npm start` keeps its own.
      CUSTOMER_API_RUNTIME_FILE: join(tmpdir(), `customer-api-smoke-${process.pid}.json`),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  server.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner:\n${output}`)), 45_000);
    server.stdout!.on('data', (chunk) => {
      output += chunk;
      const listening = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (listening && output.includes('curl -s')) {
        clearTimeout(timer);
        url = listening;
        clientId = /client_id +(\S+)/.exec(output)![1]!;
        clientSecret = /client_secret +(\S+)/.exec(output)![1]!;
        resolve();
      }
    });
    server.on('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
  });
});

afterAll(async () => {
  if (!server || server.exitCode !== null) return;
  await new Promise((resolve) => {
    server.on('exit', resolve);
    server.kill('SIGINT');
  });
});

/** `npm run smoke -- …` as a subprocess: its exit code and everything it printed. */
function smoke(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/smoke.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

const flags = (secret: string) =>
  ['--base-url', url, '--client-id', clientId, '--client-secret', secret, '--group', 'demo-group'];
const checkLines = (stdout: string) => stdout.split('\n').filter((line) => /^(PASS|FAIL|SKIP) /.test(line));

describe('npm run smoke against npm start', () => {
  it('passes every check and never prints the secret', async () => {
    const { code, stdout, stderr } = await smoke(flags(clientSecret));
    const lines = checkLines(stdout);
    // A run that printed no check at all failed before its first one: its stderr says why.
    expect(lines.length, `exit ${code}\n${stdout}\n${stderr}`).toBeGreaterThan(0);
    expect(lines.filter((line) => !line.startsWith('PASS')), stdout).toEqual([]);
    for (const name of [
      'token: HTTP Basic, wrong secret',
      'discovery: locations',
      'read bevq/menu (nyc-midtown): If-None-Match *',
      'error: wrong method',
    ]) {
      expect(lines).toContain(`PASS  ${name}`);
    }
    expect(lines.filter((line) => line.startsWith('PASS  logo ') && line.includes('.png'))).toHaveLength(3);
    expect(stdout).toMatch(/^SMOKE PASS {2}\d+ of \d+ checks passed, 0 skipped/m);
    expect(stdout).not.toContain(clientSecret);
    expect(code).toBe(0);
  });

  it('exits 1 and names the check that differs when the secret is wrong', async () => {
    const wrong = `${clientSecret.slice(0, -4)}XXXX`;
    const { code, stdout, stderr } = await smoke(flags(wrong));
    expect(checkLines(stdout), `exit ${code}\n${stdout}\n${stderr}`).toContain('FAIL  token: client_secret_post');
    expect(stdout).toMatch(/^SMOKE FAIL .*differ: token: client_secret_post/m);
    expect(stdout).not.toContain(wrong);
    expect(code).toBe(1);
  });

  it('exits 2 on a usage error', async () => {
    const { code, stderr } = await smoke(['--base-url', url, '--client-id', clientId]);
    expect(stderr).toContain('missing --client-secret, --group');
    expect(code).toBe(2);
  });
});
