import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoMenu } from '#local/demo-menu';
import type { LocalRuntime } from '#local/runtime';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '#platform/http';
import { startTestRuntime, TEST_DYNAMODB_ENDPOINT } from '../support/runtime.js';
import { PATIENCE_MS } from '../support/eventually.js';

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
    const timer = setTimeout(() => reject(new Error(`no banner:\n${output}`)), PATIENCE_MS);
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

// `--client-secret=…` in one argument: a base64url secret may begin with '-', which a separate argument would read as an option.
const flags = (secret: string) => ['--base-url', url, '--client-id', clientId, `--client-secret=${secret}`, '--group', 'demo-group'];
const checkLines = (stdout: string) => stdout.split('\n').filter((line) => /^(PASS|FAIL|SKIP) /.test(line));

describe('npm run smoke against npm start', () => {
  it('passes every check and never prints the secret', async () => {
    const { code, stdout, stderr } = await smoke(flags(clientSecret));
    const lines = checkLines(stdout);
    // A run that printed no check at all failed before its first one: its stderr says why.
    expect(lines.length, `exit ${code}\n${stdout}\n${stderr}`).toBeGreaterThan(0);
    expect(
      lines.filter((line) => !line.startsWith('PASS')),
      stdout,
    ).toEqual([]);
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

/**
 * CloudFront as the edge plays it, in a few lines: every request forwarded to the origin with the Host of the
 * origin, the origin secret in x-origin-verify and the caller in x-viewer-address (both overwriting whatever was
 * sent), and an X-Cache header on the way back (`cache`, so a test can play a misconfigured edge that caches).
 */
function playedEdge(secret: string): { server: Server; url: string; origin: { url: string }; cache: { value: string } } {
  const origin = { url: '' };
  const cache = { value: 'Miss from cloudfront' };
  const server = createServer((req, res) => {
    const target = new URL(origin.url);
    const headers = {
      ...req.headers,
      host: target.host,
      [ORIGIN_VERIFY_HEADER]: secret,
      [VIEWER_ADDRESS_HEADER]: req.socket.remoteAddress ?? '',
    };
    const upstream = request({ hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-cache': cache.value });
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  return { server, url: '', origin, cache };
}

describe('npm run smoke --origin-url against a stage behind its edge (the runtime with an origin secret plays the origin)', () => {
  const secret = 'Played0Edge0Secret0aB3dE5gH7jK9mN1pQ3sT5vW7yZ9';
  const edge = playedEdge(secret);
  let origin: LocalRuntime;
  let credentials: string[];

  beforeAll(async () => {
    await new Promise<void>((resolve) => edge.server.listen(0, '127.0.0.1', resolve));
    edge.url = `http://localhost:${(edge.server.address() as AddressInfo).port}`;
    // As the stack configures a stage with an edge: the secret, and the domain as the base of absolute URLs.
    origin = await startTestRuntime({ config: { originSecret: secret, publicBaseUrl: edge.url } });
    await seedDemoMenu(origin.deps);
    edge.origin.url = origin.url;
    credentials = ['--client-id', origin.demo!.clientId, `--client-secret=${origin.demo!.clientSecret}`, '--group', 'demo-group'];
  });

  afterAll(async () => {
    await new Promise((resolve) => edge.server.close(resolve));
    await origin?.stop();
  });

  it('passes every check through the edge, and the edge checks: the origin refuses, nothing cached, URLs on the base', async () => {
    const { code, stdout, stderr } = await smoke(['--base-url', edge.url, '--origin-url', origin.url, ...credentials]);
    const lines = checkLines(stdout);
    expect(lines.length, `exit ${code}\n${stdout}\n${stderr}`).toBeGreaterThan(0);
    expect(
      lines.filter((line) => !line.startsWith('PASS')),
      stdout,
    ).toEqual([]);
    for (const name of [
      'edge: the origin refuses a direct /v1 call',
      'edge: the origin refuses a direct token request',
      'edge: nothing cached',
      'edge: absolute URLs on the base URL',
      'discovery: locations',
    ]) {
      expect(lines).toContain(`PASS  ${name}`);
    }
    expect(stdout).not.toContain(secret);
    expect(code).toBe(0);
  });

  it('fails each edge check an edge that lets callers past, caches, or leaves the origin in URLs would break', async () => {
    edge.cache.value = 'Hit from cloudfront';
    try {
      // The "origin" is the edge itself (which adds the secret), and the base URL is not the one the stage names.
      const base = edge.url.replace('localhost', '127.0.0.1');
      const { code, stdout } = await smoke(['--base-url', base, '--origin-url', edge.url, ...credentials]);
      const failed = checkLines(stdout).filter((line) => line.startsWith('FAIL'));
      expect(failed, stdout).toEqual([
        'FAIL  edge: the origin refuses a direct /v1 call',
        'FAIL  edge: the origin refuses a direct token request',
        'FAIL  edge: nothing cached',
        'FAIL  edge: absolute URLs on the base URL',
      ]);
      expect(stdout).toContain('X-Cache Hit from cloudfront; Hit from cloudfront');
      expect(code).toBe(1);
    } finally {
      edge.cache.value = 'Miss from cloudfront';
    }
  });

  it('exits 2 when --origin-url is not an http(s) URL', async () => {
    const { code, stderr } = await smoke(['--base-url', edge.url, '--origin-url', 'ftp://origin.example.com', ...credentials]);
    expect(stderr).toContain('--origin-url must be an http(s) URL');
    expect(code).toBe(2);
  });
});
