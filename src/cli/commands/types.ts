/**
 * What a command declares, like tmux's cmd_entry: its flags with their meanings and defaults in one table that drives
 * parsing, help and completion, and a `run` that imports what it needs only when it runs. A command file imports
 * nothing heavy at its top (no client, core, server or MCP module), so loading every table costs next to nothing.
 */
import type { Parsed } from '../args.js';
import type { Io } from '../context.js';

export interface Flag {
  /** Long name, written `--name` (`-name` is accepted too). */
  name: string;
  /** One-letter form, written `-n`. */
  short?: string;
  /** Older spellings still accepted and never shown. */
  aliases?: string[];
  /** int: a whole number checked against min/max before anything is sent; list: repeatable, collected in order. */
  kind: 'boolean' | 'string' | 'int' | 'list';
  /** The value's placeholder in help: N, DIR, K=V. */
  value?: string;
  /** What it does, in a few words. */
  help: string;
  /** What happens without it, as help shows it. */
  default?: string;
  min?: number;
  max?: number;
  /** The values it takes (checked, shown, completed). */
  choices?: readonly string[];
  /** The request field it fills (JSON pointer): a server validation error about that field is reported as this flag. */
  field?: string;
  /** How the shell completes its value. */
  complete?: 'session' | 'file' | 'dir';
}

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Positional arguments, for the usage line: `ID ARG...`. */
  args?: string;
  /** More lines of help, shown under the usage line. */
  details?: string[];
  flags: Flag[];
  examples: string[];
  /** After this many positional arguments, everything else is positional (`send ID -v`, `new bash -l`). */
  stopAfter?: number;
  /** What the shell completes for each positional argument. */
  positionals?: Array<'session' | 'command' | readonly string[]>;
  /** Request fields a positional argument fills, named as the user wrote them (`{ '/cols': 'the size' }`). */
  fields?: Record<string, string>;
  /** false: talks to no daemon, so --addr, --token and --state-dir do not apply. */
  client?: false;
  run(args: Parsed, io: Io): Promise<number>;
}
