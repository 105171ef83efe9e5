import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Command, Flag, Values } from './spec.js';
import { UsageError } from './spec.js';

/** Flags every command takes: output, diagnostics and the target (see usage.ts). */
const GLOBAL_OPTIONS = {
  json: { type: 'boolean' },
  debug: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  stage: { type: 'string' },
  region: { type: 'string' },
  'runtime-file': { type: 'string' },
  port: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

type Globals = {
  json: boolean;
  debug: boolean;
  stage?: string | undefined;
  region?: string | undefined;
  runtimeFile?: string | undefined;
  port?: number | undefined;
};

export type Invocation =
  { kind: 'help' } | { kind: 'run'; command: Command; flags: Values<Record<string, Flag>>; arg: string; globals: Globals };

/** `--port P` of the CLI and `npm run listen`: a port number, or a UsageError. */
export function portArgument(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,5}$/.test(raw)) throw new UsageError(`--port must be a port number, got "${raw}"`);
  return Number(raw);
}

/** True when the command line asks for debugging output, even if it does not parse. */
export const wantsDebug = (argv: readonly string[]) => argv.includes('--debug');

/** Turns argv into a command and typed flag values, or throws UsageError. Touches nothing. */
export function parseCommandLine(argv: readonly string[], commands: readonly Command[]): Invocation {
  const [first, second] = argv;
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') return { kind: 'help' };
  const command = commands.find((c) => c.name === `${first} ${second}`) ?? commands.find((c) => c.name === first);
  if (!command) {
    const subcommands = commands.filter((c) => c.name.startsWith(`${first} `)).map((c) => c.name.split(' ')[1]);
    const given = second === undefined ? first : `${first} ${second}`;
    throw new UsageError(
      subcommands.length ? `unknown command "${given}": ${first} takes ${subcommands.join(', ')}` : `unknown command "${first}"`,
    );
  }
  const words = command.name.split(' ').length;
  const options = Object.fromEntries(
    Object.entries(command.flags).map(([name, flag]) => [
      name,
      { type: flag.kind === 'switch' ? ('boolean' as const) : ('string' as const) },
    ]),
  );
  let parsed;
  try {
    parsed = parseArgs({
      args: argv.slice(words),
      options: { ...options, ...GLOBAL_OPTIONS },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    // node:util messages go on with advice about "--"; the first sentence is the useful part.
    throw new UsageError(`${command.name}: ${(err as Error).message.split('. ')[0]}`);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };

  const expected = command.arg ? 1 : 0;
  if (positionals.length !== expected && !(command.argOptional && positionals.length === 0)) {
    throw new UsageError(
      command.arg ? `${command.name} takes one ${command.arg}` : `${command.name} takes no arguments, got "${positionals.join(' ')}"`,
    );
  }
  if (values.region !== undefined && values.stage === undefined) throw new UsageError('--region needs --stage');
  const local = [values['runtime-file'] !== undefined && '--runtime-file', values.port !== undefined && '--port'].filter(Boolean);
  if (values.stage !== undefined && local.length) throw new UsageError(`pass --stage or ${local.join(' and ')}, not both`);
  if (local.length === 2) throw new UsageError('pass --runtime-file or --port, not both');

  const flags: Record<string, unknown> = {};
  for (const [name, flag] of Object.entries(command.flags)) {
    const raw = (values as Record<string, unknown>)[name];
    if (typeof raw === 'boolean') flags[name] = raw;
    else if (typeof raw === 'string') flags[name] = convert(name, flag, raw);
    else if (flag.required) throw new UsageError(`${command.name} needs --${name} ${flag.value}`);
  }
  return {
    kind: 'run',
    command,
    // Each value now has the type its declaration promises (convert and the required check above).
    flags: flags as Values<Record<string, Flag>>,
    arg: positionals[0] ?? '',
    globals: {
      json: values.json === true,
      debug: values.debug === true,
      stage: values.stage,
      region: values.region,
      runtimeFile: values['runtime-file'],
      port: portArgument(values.port),
    },
  };
}

function convert(name: string, flag: Flag, raw: string): unknown {
  switch (flag.kind ?? 'text') {
    case 'list':
      return raw
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
    case 'int':
      if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a whole number, got "${raw}"`);
      return Number(raw);
    default:
      return raw;
  }
}
