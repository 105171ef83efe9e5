import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * One temporary folder per run, for everything the suites and what they start write to the system's (CDK's cloud
 * assemblies, engines' files, CLI caches), removed when the run ends: repeated runs never fill the disk. The forks
 * start after this and inherit TMPDIR, which os.tmpdir() reads. Each project inherits this setup; the first makes
 * the folder.
 */
export default function runTmpdir(): (() => void) | undefined {
  if (process.env.CUSTOMER_API_TEST_TMPDIR) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'customer-api-test-'));
  // As open as the system's own (sticky, everyone's): a suite runs some commands as another user (nobody).
  chmodSync(dir, 0o1777);
  process.env.CUSTOMER_API_TEST_TMPDIR = process.env.TMPDIR = dir;
  // V8's compiled code of every module, kept for the forks and the processes they start (saves about 4 % of CPU).
  process.env.NODE_COMPILE_CACHE = join(dir, 'node-compile-cache');
  // Retried: a process the run started may still be writing its compile cache as it exits.
  return () => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}
