import { spawnSync } from 'node:child_process';
import { findTool, TOOLS, which, type Env, type Tool } from './tools.js';

/**
 * First step of `npm test`: finds every tool the suites run beside Node (`TOOLS`), brings what is missing through
 * apt-get when this process has the rights to (root, or sudo without a password), and otherwise stops before any
 * suite with one line on stderr naming the install command, exit 1. No suite skips for a missing tool.
 */
const started = performance.now();
const env: Env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };

/** The words that run a command as root here, or undefined when nothing may. */
function privileged(): string[] | undefined {
  if (process.getuid?.() === 0) return [];
  const sudo = which('sudo', env);
  if (sudo && spawnSync(sudo, ['-n', 'true'], { env, stdio: 'ignore' }).status === 0) return [sudo, '-n'];
  return undefined;
}

function missingTools(): Array<[Tool, string]> {
  return Object.values(TOOLS).flatMap((tool): Array<[Tool, string]> => {
    const found = findTool(tool, env);
    return 'missing' in found ? [[tool, found.missing]] : [];
  });
}

function stop(missing: Array<[Tool, string]>, why: string): never {
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  const what = missing.map(([tool, reason]) => `${tool.name} (${tool.purpose}): ${reason}`).join('; ');
  const packages = missing.map(([tool]) => tool.aptPackage).join(' ');
  const variables = missing.map(([tool]) => tool.variable).join(' or ');
  process.stderr.write(`npm test needs ${what}; ${why}. Install with: ${sudo}apt-get install -y ${packages} (or set ${variables})\n`);
  process.exit(1);
}

const missing = missingTools();
if (missing.length > 0) {
  const aptGet = which('apt-get', env);
  const asRoot = privileged();
  if (!aptGet) stop(missing, 'apt-get is not on the PATH');
  if (!asRoot) stop(missing, 'this user may not run apt-get (not root, no password-less sudo)');
  const packages = missing.map(([tool]) => tool.aptPackage);
  console.log(`bringing ${missing.map(([tool]) => tool.name).join(', ')}: apt-get install -y ${packages.join(' ')}`);
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', ...packages]]) {
    const [command, ...rest] = [...asRoot, aptGet, ...args] as [string, ...string[]];
    const run = spawnSync(command, rest, { env, encoding: 'utf8' });
    if (run.status !== 0) stop(missing, `apt-get ${args[0]} failed (exit ${run.status ?? run.signal})`);
  }
  const still = missingTools();
  if (still.length > 0) stop(still, 'apt-get installed the packages but the tool is still not usable');
}
const paths = Object.values(TOOLS).map((tool) => {
  const found = findTool(tool, env);
  return `${tool.name} ${'path' in found ? found.path : '?'}`;
});
console.log(`tools: ${paths.join(', ')} (${Math.round(performance.now() - started)} ms)`);
