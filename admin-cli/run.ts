import { AdminInputError } from '#domain/inputs';
import { COMMANDS } from './commands.js';
import { parseCommandLine, wantsDebug } from './parse.js';
import { UsageError } from './spec.js';
import { openTarget, TargetError } from './target.js';
import { AdminApiError } from './admin-api.js';
import { USAGE_HINT, usage } from './usage.js';

export type Io = {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
};

/** Runs one admin command line and returns the exit code: 0 done, 2 bad input, usage or an admin API refusal, 1 unexpected. */
export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  try {
    const invocation = parseCommandLine(argv, COMMANDS);
    if (invocation.kind === 'help') {
      io.out(`${usage(COMMANDS)}\n`);
      return 0;
    }
    const { command, flags, arg, globals } = invocation;
    const target = await openTarget(globals, io.env);
    if (globals.debug) io.err(`target: ${target.label}\n`);
    const progress = (line: string) => io.err(`${line}\n`);
    const output = await command.run({ flags, arg, api: target.api, progress });
    io.out(globals.json ? `${JSON.stringify(output.json, null, 2)}\n` : `${output.text}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      // The line that says what was wrong, and where the rest is: the whole usage would bury it.
      io.err(`error: ${err.message}\n${USAGE_HINT}\n`);
      return 2;
    }
    if (err instanceof AdminInputError || err instanceof TargetError || err instanceof AdminApiError) {
      io.err(`error: ${err.message}\n`);
      return 2;
    }
    io.err(
      wantsDebug(argv) ? `${(err as Error)?.stack ?? String(err)}\n` : `unexpected error: ${oneLine(err)} (--debug shows the stack)\n`,
    );
    return 1;
  }
}

function oneLine(err: unknown): string {
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return message.split('\n')[0]!;
}
