import { chmodSync, lstatSync, readdirSync } from 'node:fs';
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
