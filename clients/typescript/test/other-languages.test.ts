import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findTool, toolPath, TOOLS, type Tool } from '../../../test/support/tools.js';
import { VECTORS, VECTORS_FILE } from './vectors.js';

/**
 * The Python and Java verification snippets (clients/python, clients/java) check every published vector and print
 * one `ok <name>` line a case. Java is a tool the test step brings (test/support/tools.ts); Python 3 is not, but
 * every Debian and Ubuntu machine has it: where it is missing this test says so plainly.
 */
const PYTHON: Tool = {
  name: 'Python 3',
  purpose: "the kit's Python verification snippet",
  variable: 'PYTHON_PATH',
  commands: ['python3'],
  install: { with: 'apt-get', package: 'python3' },
};

function python(): string {
  const found = findTool(PYTHON);
  if ('missing' in found)
    throw new Error(`${PYTHON.name} (${PYTHON.purpose}): ${found.missing}; install it (apt-get install -y python3) or set PYTHON_PATH`);
  return found.path;
}

const file = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const vectorsPath = fileURLToPath(VECTORS_FILE);

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, lines: result.stdout.trim().split('\n'), stderr: result.stderr };
}

describe('the verification snippets in other languages', () => {
  const everyCase = VECTORS.map((v) => `ok ${v.name}`);

  it('Python (stdlib hmac, hashlib) accepts and rejects every vector as published, with its reason', () => {
    const result = run(python(), [file('../../python/verify.py'), vectorsPath]);
    expect(result.lines).toEqual(everyCase);
    expect(result.status, result.stderr).toBe(0);
  });

  it('Java (JDK only, single-file launch) does the same', () => {
    const result = run(toolPath(TOOLS.java), [file('../../java/Verify.java'), vectorsPath]);
    expect(result.lines).toEqual(everyCase);
    expect(result.status, result.stderr).toBe(0);
  });
});
