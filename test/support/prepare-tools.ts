import { spawnSync } from 'node:child_process';
import { findTool, TOOLS, which, type Env, type Installer, type Tool } from './tools.js';

/**
 * First step of `npm test`: finds every tool the suites run beside Node (`TOOLS`), brings what is missing through
 * its installer (apt-get when this process has the rights to: root, or sudo without a password; pip), and otherwise
 * stops before any suite with one line on stderr naming the install commands, exit 1. No suite skips for a
 * missing tool.
 */
const started = performance.now();
const env: Env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
const root = process.getuid?.() === 0;
type Missing = Array<[Tool, string]>;

/** How each installer is found and run, and the command a user types when it cannot run here. */
const INSTALLERS: Record<
  Installer,
  { commands: string[]; needsRoot: boolean; steps: (packages: string[]) => string[][]; manual: (packages: string) => string }
> = {
  'apt-get': {
    commands: ['apt-get'],
    needsRoot: true,
    steps: (packages) => [
      ['update', '-qq'],
      ['install', '-y', '-qq', ...packages],
    ],
    manual: (packages) => `${root ? '' : 'sudo '}apt-get install -y ${packages}`,
  },
  pip: {
    commands: ['pip3', 'pip'],
    needsRoot: false,
    steps: (packages) => [['install', '--quiet', ...packages]],
    manual: (packages) => `pip install ${packages}`,
  },
};

/** The words that run a command as root here, or undefined when nothing may. */
function privileged(): string[] | undefined {
  if (root) return [];
  const sudo = which('sudo', env);
  if (sudo && spawnSync(sudo, ['-n', 'true'], { env, stdio: 'ignore' }).status === 0) return [sudo, '-n'];
  return undefined;
}

function missingTools(): Missing {
  return Object.values(TOOLS).flatMap((tool): Missing => {
    const found = findTool(tool, env);
    return 'missing' in found ? [[tool, found.missing]] : [];
  });
}

function byInstaller(missing: Missing): Array<[Installer, Missing]> {
  const groups = new Map<Installer, Missing>();
  for (const entry of missing) groups.set(entry[0].install.with, [...(groups.get(entry[0].install.with) ?? []), entry]);
  return [...groups];
}

function stop(missing: Missing, why: string[]): never {
  const what = missing.map(([tool, reason]) => `${tool.name} (${tool.purpose}): ${reason}`).join('; ');
  const commands = byInstaller(missing).map(([installer, tools]) =>
    INSTALLERS[installer].manual(tools.map(([tool]) => tool.install.package).join(' ')),
  );
  const variables = missing.map(([tool]) => tool.variable).join(' or ');
  process.stderr.write(`npm test needs ${what}; ${why.join('; ')}. Install with: ${commands.join(' && ')} (or set ${variables})\n`);
  process.exit(1);
}

/** Runs one installer for its tools; returns why it could not, or undefined once it ran. */
function bring(installer: Installer, tools: Missing): string | undefined {
  const how = INSTALLERS[installer];
  const binary = how.commands.map((command) => which(command, env)).find(Boolean);
  if (!binary) return `${how.commands.join(' or ')} is not on the PATH`;
  const prefix = how.needsRoot ? privileged() : [];
  if (!prefix) return `this user may not run ${installer} (not root, no password-less sudo)`;
  const packages = tools.map(([tool]) => tool.install.package);
  console.log(`bringing ${tools.map(([tool]) => tool.name).join(', ')}: ${installer} install ${packages.join(' ')}`);
  for (const args of how.steps(packages)) {
    const [command, ...rest] = [...prefix, binary, ...args] as [string, ...string[]];
    const run = spawnSync(command, rest, { env, encoding: 'utf8' });
    if (run.status !== 0) return `${installer} ${args[0]} failed (exit ${run.status ?? run.signal})`;
  }
  return undefined;
}

const missing = missingTools();
if (missing.length > 0) {
  const failures = byInstaller(missing).flatMap(([installer, tools]) => bring(installer, tools) ?? []);
  const still = missingTools();
  if (still.length > 0) stop(still, failures.length > 0 ? failures : ['the installer ran but the tool is still not usable']);
}
const paths = Object.values(TOOLS).map((tool) => {
  const found = findTool(tool, env);
  return `${tool.name} ${'path' in found ? found.path : '?'}`;
});
console.log(`tools: ${paths.join(', ')} (${Math.round(performance.now() - started)} ms)`);
