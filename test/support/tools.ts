import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The programs the tests run beside Node, declared once: the variable that names each, the commands looked up on
 * the PATH otherwise, the oldest version that works, and the package that brings it. The preparation step
 * (`prepare-tools.ts`, first in `npm test`) and the suites that start these programs both find them here.
 */
export interface Tool {
  name: string;
  /** What the tests need it for, in the one line a stop prints. */
  purpose: string;
  /** Names the binary outright; when it is set, the PATH is not searched. */
  variable: string;
  commands: string[];
  /** Arguments that print the version, and the oldest major that works. */
  version?: { args: string[]; minimumMajor: number };
  /**
   * What brings it: a Debian package through apt-get (needs root or password-less sudo), or a Python package
   * through pip (cfn-lint: Debian and npm carry no usable one).
   */
  install: { with: Installer; package: string };
}

export type Installer = 'apt-get' | 'pip';

/**
 * The cfn-lint the infrastructure tests rely on, pinned: its schemas decide what it flags, and the findings it
 * is known to get wrong (LINTER_LAG in test/infra/cfn-lint.test.ts) hold for this version only. The machines carry
 * it; the cfn-lint test refuses another.
 */
export const CFN_LINT_VERSION = '1.51.0';

export const TOOLS = {
  java: {
    name: 'Java 17+',
    purpose: 'DynamoDB Local, the second engine',
    variable: 'JAVA_PATH',
    commands: ['java'],
    version: { args: ['-version'], minimumMajor: 17 },
    install: { with: 'apt-get', package: 'openjdk-17-jre-headless' },
  },
  chromium: {
    name: 'Chromium',
    purpose: "the console's browser tests",
    variable: 'CHROMIUM_PATH',
    commands: ['chromium', 'chromium-browser'],
    install: { with: 'apt-get', package: 'chromium' },
  },
  cfnLint: {
    name: 'cfn-lint',
    purpose: "the stack's templates checked against CloudFormation's schemas",
    variable: 'CFN_LINT_PATH',
    commands: ['cfn-lint'],
    install: { with: 'pip', package: `cfn-lint==${CFN_LINT_VERSION}` },
  },
} satisfies Record<string, Tool>;

export type Env = Record<string, string | undefined>;
export type Found = { path: string } | { missing: string };

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The major version a binary prints (`openjdk version "17.0.15"`, `java version "1.8.0_392"` → 8), if any. */
export function majorVersion(printed: string): number | undefined {
  const match = /version "?(\d+)(?:\.(\d+))?/i.exec(printed);
  if (!match) return undefined;
  const first = Number(match[1]);
  return first === 1 && match[2] ? Number(match[2]) : first;
}

function checkVersion(tool: Tool, path: string, env: Env): Found {
  if (!tool.version) return { path };
  const run = spawnSync(path, tool.version.args, { env, encoding: 'utf8', timeout: 30_000 });
  const major = majorVersion(`${run.stdout ?? ''}${run.stderr ?? ''}`);
  if (major === undefined) return { missing: `${path} printed no version` };
  if (major < tool.version.minimumMajor) return { missing: `${path} is version ${major}, older than ${tool.version.minimumMajor}` };
  return { path };
}

/** The first executable file of that name in the PATH's folders. */
export function which(command: string, env: Env): string | undefined {
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  return dirs.map((dir) => join(dir, command)).find(executable);
}

/** Finds a tool through its variable, or else the PATH, and checks its version. */
export function findTool(tool: Tool, env: Env = process.env): Found {
  const named = env[tool.variable];
  if (named) return executable(named) ? checkVersion(tool, named, env) : { missing: `${tool.variable}=${named} is not an executable file` };
  for (const command of tool.commands) {
    const path = which(command, env);
    if (path) return checkVersion(tool, path, env);
  }
  return { missing: `${tool.variable} is unset and no ${tool.commands.join(' or ')} is on the PATH` };
}

/** The path of a tool the preparation step already made sure of; a suite that needs it calls this. */
export function toolPath(tool: Tool, env: Env = process.env): string {
  const found = findTool(tool, env);
  if ('missing' in found) throw new Error(`${tool.name} (${tool.purpose}): ${found.missing}; run npm test, which brings it`);
  return found.path;
}
