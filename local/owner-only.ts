import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The modes of what the local runtime keeps on disk: secrets (table data, the demo secret, the engines' credential). */
export const OWNER_FOLDER = 0o700;
export const OWNER_FILE = 0o600;

/**
 * Takes the group's and others' rights from a folder and everything in it (0755 → 0700, 0644 → 0600), at every
 * start: a folder an older start left world-readable is closed too. Symbolic links are not followed.
 */
export function ownerOnly(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if (stat.mode & 0o077) chmodSync(path, stat.mode & 0o700);
  if (stat.isDirectory()) for (const name of readdirSync(path)) ownerOnly(join(path, name));
}

/**
 * A value a data folder keeps across restarts (owner-only): the one its file holds when `valid`, else `make()`'s,
 * written for the next start. Without a folder (in memory), `make()`'s for this run alone.
 */
export async function keptInDataFolder(
  dataDir: string | null,
  name: string,
  make: () => string | Promise<string>,
  valid: (kept: string) => boolean = (kept) => kept !== '',
): Promise<string> {
  const file = dataDir ? join(dataDir, name) : null;
  const kept = file && existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (valid(kept)) return kept;
  const value = await make();
  if (file) writeFileSync(file, `${value}\n`, { mode: OWNER_FILE });
  return value;
}
