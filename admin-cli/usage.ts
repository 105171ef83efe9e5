import { MODULES, SCOPES } from '#contract/scopes';
import type { Command } from './spec.js';

/** The one hint a usage error ends with. */
export const USAGE_HINT = 'npm run admin -- --help for usage';

/** The usage text, derived from the command table; `help` prints it. */
export function usage(commands: readonly Command[]): string {
  const synopsis = (c: Command) =>
    [
      c.name,
      ...(c.arg ? [c.argOptional ? `[${c.arg}]` : c.arg] : []),
      ...Object.entries(c.flags).map(([name, f]) => {
        const text = f.kind === 'switch' ? `--${name}` : `--${name} ${f.value}`;
        return f.required ? text : `[${text}]`;
      }),
    ].join(' ');
  return [
    'Usage: npm run admin -- <command> [flags]',
    '',
    'Commands:',
    ...commands.flatMap((c) => [`  ${synopsis(c)}`, ...c.summary.split('\n').map((l) => `      ${l}`), `      json: ${c.json}`]),
    '  help',
    '      Show this text (also -h, --help).',
    '',
    'Target (default: the local runtime started by `npm start`):',
    '  --port P                the local runtime listening on port P (another data folder, or --in-memory)',
    '  --runtime-file F        that local runtime file; also env CUSTOMER_API_RUNTIME_FILE (default: the one of the',
    '                          data folder `npm start` uses, .data or CUSTOMER_API_DATA_DIR, under .local/)',
    '  --stage S [--region R]  a deployed stage: its admin API (SigV4) and outputs of stack CustomerApi-S, default AWS credentials',
    '',
    'Every command also takes:',
    '  --json                  print one JSON document on stdout, every key camelCase; App, Group and Location',
    '                          are the stored records, and App never holds a secret or its hash',
    '  --debug                 print the stack of an unexpected error',
    '',
    `Scopes:  ${SCOPES.join(', ')}`,
    `Modules: ${MODULES.join(', ')}`,
    'Exit:    0 done; 2 bad input, usage or an admin API refusal (nothing written, message on stderr); 1 unexpected error',
  ].join('\n');
}
