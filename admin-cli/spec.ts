import type { AdminApi } from './admin-api.js';

/**
 * How a command is declared: its words, flags, optional positional and run
 * function. Parsing (parse.ts) and the usage text (usage.ts) are derived from
 * these declarations, so a flag exists in exactly one place.
 */

/** text: a string; list: "a,b,c" → string[]; int: a whole number; switch: present or not (takes no value). */
type FlagKind = 'text' | 'list' | 'int' | 'switch';

export type Flag = {
  /** Placeholder shown in the usage text, e.g. "G" or "S1,S2". */
  value: string;
  kind?: FlagKind;
  required?: boolean;
};

type ValueOf<F extends Flag> = F extends { kind: 'list' }
  ? string[]
  : F extends { kind: 'int' }
    ? number
    : F extends { kind: 'switch' }
      ? boolean
      : string;

/** The parsed flags a command's run function receives, typed from its declaration. */
export type Values<F extends Record<string, Flag>> = {
  [K in keyof F]: F[K] extends { required: true } ? ValueOf<F[K]> : ValueOf<F[K]> | undefined;
};

/** What a command prints: `json` with --json (one document), otherwise `text`. */
type Output = { json: unknown; text: string };

type RunInput<F extends Record<string, Flag>> = {
  flags: Values<F>;
  /** The positional argument, when the command declares one; '' otherwise. */
  arg: string;
  /** The target's admin API: every command goes through it, so the audit trail records each change. */
  api: AdminApi;
  /** A progress line for the operator (stderr), for commands that work in steps; never part of the output. */
  progress?: (line: string) => void;
};

export type Command<F extends Record<string, Flag> = Record<string, Flag>> = {
  /** One or two words: "groups list", "apps create". */
  name: string;
  /** One or more lines ("\n") for the usage text. */
  summary: string;
  /** Placeholder of the single positional argument (e.g. "ID"), if the command takes one. */
  arg?: string;
  /** The positional may be left out (e.g. `dlq redrive ID|--all`); run then gets ''. */
  argOptional?: true;
  flags: F;
  /** Shape of the --json document, for the usage text. */
  json: string;
  run(input: RunInput<F>): Promise<Output>;
};

/** Keeps each command's flag types while the table holds them side by side. */
export function defineCommand<const F extends Record<string, Flag>>(command: Command<F>): Command {
  return command;
}

/** Thrown for a command line that does not fit the declarations; the usage text follows the message. */
export class UsageError extends Error {}
