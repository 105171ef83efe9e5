import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { majorVersion, TOOLS } from '../support/tools.js';

/**
 * The preparation step of `npm test` (`test/support/prepare-tools.ts`) run as a process with a folder of shims as
 * its whole PATH: a java that is missing, too old or right, a Chromium or none, an apt-get that installs or is
 * refused, a sudo that lets or refuses. Each case asserts the outcome a user sees: the exit code, the one stderr
 * line of a stop, and what apt-get was asked.
 */
const JAVA_17 = `#!/bin/sh\necho 'openjdk version "17.0.2" 2022-01-18' >&2\n`;
const JAVA_11 = `#!/bin/sh\necho 'openjdk version "11.0.21" 2023-10-17' >&2\n`;
const CHROMIUM = `#!/bin/sh\necho 'Chromium 150.0.7871.100'\n`;
const CFN_LINT = `#!/bin/sh\necho 'cfn-lint 1.51.0'\n`;
const ROOT = process.getuid?.() === 0;
const NOBODY = 65534;
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function shims(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'prepare-tools-'));
  folders.push(dir);
  chmodSync(dir, 0o777);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text, { mode: 0o755 });
  return dir;
}

/** An apt-get that records its arguments, then installs the named shims into its own folder, or is refused. */
function aptGet(outcome: { brings: Record<string, string> } | 'refused'): string {
  const installs =
    outcome === 'refused'
      ? `echo 'E: Could not open lock file /var/lib/dpkg/lock-frontend - open (13: Permission denied)' >&2\nexit 100\n`
      : Object.entries(outcome.brings)
          .map(([name, text]) => `printf '%s' '${text.replaceAll("'", `'"'"'`)}' > "$here/${name}"\n/bin/chmod 755 "$here/${name}"\n`)
          .join('') + 'exit 0\n';
  return `#!/bin/sh\nhere=\${0%/*}\necho "$*" >> "$here/apt-get.log"\n[ "$1" = update ] && exit 0\n${installs}`;
}

/** A pip that records its arguments, then installs the named shims into its own folder, or fails as without its index. */
function pip(outcome: { brings: Record<string, string> } | 'refused'): string {
  return aptGet(outcome)
    .replace('apt-get.log', 'pip.log')
    .replace(/echo 'E: .*' >&2\nexit 100/, "echo 'ERROR: No matching distribution found for cfn-lint' >&2\nexit 1");
}

/** A sudo that runs what it is given, or refuses as `sudo -n` does without a cached password. */
const SUDO = `#!/bin/sh\n[ "$1" = -n ] && shift\n[ "$1" = true ] && exit 0\nexec "$@"\n`;
const SUDO_REFUSES = `#!/bin/sh\necho 'sudo: a password is required' >&2\nexit 1\n`;

interface Outcome {
  code: number | null;
  stdout: string;
  stderrLines: string[];
  aptCalls: string[];
}

function prepare(dir: string, options: { asRoot: boolean; env?: Record<string, string> }): Promise<Outcome> {
  // A run that must not be root runs as nobody when the suite itself is root.
  const user = !options.asRoot && ROOT ? { uid: NOBODY, gid: NOBODY } : {};
  if (options.asRoot && !ROOT) throw new Error('the as-root cases need the suite to run as root, as npm test does where apt-get may run');
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/prepare-tools.ts'], {
    env: { PATH: dir, HOME: dir, TSX_DISABLE_CACHE: '1', ...options.env },
    ...user,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.once('close', (code) => {
      const log = join(dir, 'apt-get.log');
      const aptCalls = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
      resolve({ code, stdout, stderrLines: stderr.split('\n').filter(Boolean), aptCalls });
    }),
  );
}

describe('the preparation step of npm test', () => {
  it('uses the tools it finds and asks apt-get for nothing', async () => {
    const dir = shims({ java: JAVA_17, chromium: CHROMIUM, 'cfn-lint': CFN_LINT, 'apt-get': aptGet({ brings: {} }) });
    const outcome = await prepare(dir, { asRoot: true });
    expect(outcome).toMatchObject({ code: 0, stderrLines: [], aptCalls: [] });
    expect(outcome.stdout).toContain(`Java 17+ ${join(dir, 'java')}, Chromium ${join(dir, 'chromium')}`);
  });

  it('fetches a missing Java through apt-get as root, then uses it', async () => {
    const dir = shims({ chromium: CHROMIUM, 'cfn-lint': CFN_LINT, 'apt-get': aptGet({ brings: { java: JAVA_17 } }) });
    const outcome = await prepare(dir, { asRoot: true });
    expect(outcome.code).toBe(0);
    expect(outcome.stderrLines).toEqual([]);
    expect(outcome.aptCalls).toEqual(['update -qq', `install -y -qq ${TOOLS.java.install.package}`]);
    expect(outcome.stdout).toContain(`Java 17+ ${join(dir, 'java')}`);
  });

  it('replaces a Java older than 17 and fetches Chromium in the same apt-get call', async () => {
    const dir = shims({ java: JAVA_11, 'cfn-lint': CFN_LINT, 'apt-get': aptGet({ brings: { java: JAVA_17, chromium: CHROMIUM } }) });
    const outcome = await prepare(dir, { asRoot: true });
    expect(outcome.code).toBe(0);
    expect(outcome.aptCalls).toEqual(['update -qq', `install -y -qq ${TOOLS.java.install.package} ${TOOLS.chromium.install.package}`]);
  });

  it('stops with one line naming the install command when apt-get is refused', async () => {
    const dir = shims({ java: JAVA_11, chromium: CHROMIUM, 'cfn-lint': CFN_LINT, 'apt-get': aptGet('refused') });
    const outcome = await prepare(dir, { asRoot: true });
    expect(outcome.code).toBe(1);
    expect(outcome.stderrLines).toHaveLength(1);
    expect(outcome.stderrLines[0]).toContain('is version 11, older than 17');
    expect(outcome.stderrLines[0]).toContain(`apt-get install failed (exit 100)`);
    expect(outcome.stderrLines[0]).toMatch(
      new RegExp(`Install with: apt-get install -y ${TOOLS.java.install.package} \\(or set JAVA_PATH\\)$`),
    );
    expect(outcome.stdout).not.toContain('tools:');
  });

  it('stops when apt-get reports success but the tool is still missing', async () => {
    const dir = shims({ java: JAVA_17, 'cfn-lint': CFN_LINT, 'apt-get': aptGet({ brings: {} }) });
    const outcome = await prepare(dir, { asRoot: true });
    expect(outcome.code).toBe(1);
    expect(outcome.stderrLines).toHaveLength(1);
    expect(outcome.stderrLines[0]).toContain('the installer ran but the tool is still not usable');
    expect(outcome.stderrLines[0]).toContain(`apt-get install -y ${TOOLS.chromium.install.package}`);
  });

  it('without root or sudo, asks apt-get for nothing and names the sudo command', async () => {
    const dir = shims({ java: JAVA_17, 'cfn-lint': CFN_LINT, 'apt-get': aptGet({ brings: { chromium: CHROMIUM } }), sudo: SUDO_REFUSES });
    const outcome = await prepare(dir, { asRoot: false });
    expect(outcome.code).toBe(1);
    expect(outcome.aptCalls).toEqual([]);
    expect(outcome.stderrLines).toHaveLength(1);
    expect(outcome.stderrLines[0]).toContain('not root, no password-less sudo');
    expect(outcome.stderrLines[0]).toMatch(/Install with: sudo apt-get install -y chromium \(or set CHROMIUM_PATH\)$/);
  });

  it('without root, fetches through password-less sudo', async () => {
    const dir = shims({ java: JAVA_17, 'cfn-lint': CFN_LINT, 'apt-get': aptGet({ brings: { chromium: CHROMIUM } }), sudo: SUDO });
    const outcome = await prepare(dir, { asRoot: false });
    expect(outcome.code).toBe(0);
    expect(outcome.aptCalls).toEqual(['update -qq', `install -y -qq ${TOOLS.chromium.install.package}`]);
  });

  it('stops naming every tool and both install commands when there is no installer at all', async () => {
    const dir = shims({});
    const outcome = await prepare(dir, { asRoot: true });
    expect(outcome.code).toBe(1);
    expect(outcome.stderrLines).toHaveLength(1);
    expect(outcome.stderrLines[0]).toContain('apt-get is not on the PATH; pip3 or pip is not on the PATH');
    expect(outcome.stderrLines[0]).toMatch(
      /Install with: apt-get install -y openjdk-17-jre-headless chromium && pip install cfn-lint==1\.51\.0 \(or set JAVA_PATH or CHROMIUM_PATH or CFN_LINT_PATH\)$/,
    );
  });

  it('fetches cfn-lint through pip, which needs no root', async () => {
    const dir = shims({ java: JAVA_17, chromium: CHROMIUM, pip3: pip({ brings: { 'cfn-lint': CFN_LINT } }), sudo: SUDO_REFUSES });
    const outcome = await prepare(dir, { asRoot: false });
    expect(outcome.code, outcome.stderrLines.join('\n')).toBe(0);
    expect(readFileSync(join(dir, 'pip.log'), 'utf8').trim()).toBe('install --quiet cfn-lint==1.51.0');
    expect(outcome.stdout).toContain(`cfn-lint ${join(dir, 'cfn-lint')}`);
  });

  it('stops with one line for apt-get and pip together when both fail', async () => {
    const dir = shims({ java: JAVA_17, 'apt-get': aptGet('refused'), pip: pip('refused') });
    const outcome = await prepare(dir, { asRoot: true });
    expect(outcome.code).toBe(1);
    expect(outcome.stderrLines).toHaveLength(1);
    expect(outcome.stderrLines[0]).toContain('apt-get install failed (exit 100); pip install failed (exit 1)');
    expect(outcome.stderrLines[0]).toMatch(
      /Install with: apt-get install -y chromium && pip install cfn-lint==1\.51\.0 \(or set CHROMIUM_PATH or CFN_LINT_PATH\)$/,
    );
  });

  it('takes a tool from its variable instead of the PATH, and refuses a variable that names nothing', async () => {
    const elsewhere = shims({ 'my-chromium': CHROMIUM });
    const dir = shims({ java: JAVA_17, 'cfn-lint': CFN_LINT, 'apt-get': aptGet('refused') });
    const named = await prepare(dir, { asRoot: true, env: { CHROMIUM_PATH: join(elsewhere, 'my-chromium') } });
    expect(named).toMatchObject({ code: 0, aptCalls: [] });
    expect(named.stdout).toContain(`Chromium ${join(elsewhere, 'my-chromium')}`);
    const wrong = await prepare(dir, { asRoot: true, env: { CHROMIUM_PATH: join(elsewhere, 'none') } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderrLines).toHaveLength(1);
    expect(wrong.stderrLines[0]).toContain(`CHROMIUM_PATH=${join(elsewhere, 'none')} is not an executable file`);
  });
});

describe('majorVersion', () => {
  it('reads the major of the version lines Java prints, old and new', () => {
    expect(majorVersion('openjdk version "17.0.15" 2025-04-15')).toBe(17);
    expect(majorVersion('openjdk version "21" 2023-09-19')).toBe(21);
    expect(majorVersion('java version "1.8.0_392"')).toBe(8);
    expect(majorVersion('no version here')).toBeUndefined();
  });
});
