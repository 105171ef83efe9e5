import { readFile } from 'node:fs/promises';
import { AdminInputError } from '#domain/inputs';

/** A JSON input file (venues, menus); unreadable or invalid files are bad input. */
export async function readJsonFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new AdminInputError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AdminInputError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}
