import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { MenuCopy, MenuStore } from '../../clients/typescript/src/index.js';

/**
 * The copies in one JSON file, `{"group/location": {etag, revision, menu}}`, read at start and rewritten whole on
 * each change through a temporary file and a rename, so a receiver killed mid-write leaves the previous file.
 */
export function jsonFileMenuStore(path: string): MenuStore {
  const copies = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, MenuCopy>) : {};
  return {
    get: async (groupId, locationId) => copies[`${groupId}/${locationId}`],
    put: async (groupId, locationId, copy) => {
      copies[`${groupId}/${locationId}`] = copy;
      writeFileSync(`${path}.tmp`, `${JSON.stringify(copies, null, 2)}\n`);
      renameSync(`${path}.tmp`, path);
    },
  };
}
