import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * One temporary folder per run, for everything the suites and what they start write to the system's (CDK's cloud
 * assemblies, engines' files, CLI caches), removed when the run ends: repeated runs never fill the disk. The forks
 * start after this and inherit TMPDIR, which os.tmpdir() reads.
 */
export default function runTmpdir(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'customer-api-test-'));
  // As open as the system's own (sticky, everyone's): a suite runs some commands as another user (nobody).
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
