/** Help text, made from the commands' tables: the list of commands, and one command's flags, defaults and examples. */
import { flagsOf, GLOBAL_FLAGS } from './args.js';
import type { Command, Flag } from './commands/types.js';

/** `[--cols N]`-style synopsis of a command. */
export function usageLine(cmd: Command): string {
  const parts = [`termhost ${cmd.name}`];
  if (cmd.flags.length > 0) parts.push('[flags]');
  if (cmd.args) parts.push(cmd.args);
  return parts.join(' ');
}

function flagSpelling(f: Flag): string {
  const long = `--${f.name}${f.value ? ` ${f.value}` : ''}`;
  return f.short ? `-${f.short}, ${long}` : `    ${long}`;
}

function flagRows(flags: Flag[]): string[] {
  const left = flags.map(flagSpelling);
  const width = Math.min(32, Math.max(...left.map((l) => l.length)));
  return flags.map((f, i) => {
    const notes: string[] = [];
    if (f.choices) notes.push(`one of: ${f.choices.join(', ')}`);
    if (f.kind === 'int' && f.min !== undefined && f.max !== undefined) notes.push(`${f.min}..${f.max}`);
    else if (f.kind === 'int' && f.min !== undefined) notes.push(`at least ${f.min}`);
    else if (f.kind === 'int' && f.max !== undefined) notes.push(`at most ${f.max}`);
    if (f.kind === 'list') notes.push('repeatable');
    if (f.default !== undefined) notes.push(`default: ${f.default}`);
    const l = left[i]!;
    // A spelling wider than the column gets its own line; the meaning goes under, in the column.
    const pad = l.length > width ? `\n  ${' '.repeat(width)}` : ' '.repeat(width - l.length);
    return `  ${l}${pad}  ${f.help}${notes.length ? ` (${notes.join('; ')})` : ''}`;
  });
}

/** One command's help; `globals: false` leaves out the global flags (docs/cli.md lists them once). */
export function commandHelp(cmd: Command, opts: { globals?: boolean } = {}): string {
  const out = [`usage: ${usageLine(cmd)}`, '', `${cmd.summary[0]!.toUpperCase()}${cmd.summary.slice(1)}.`];
  if (cmd.details?.length) out.push('', ...cmd.details);
  if (cmd.flags.length > 0) out.push('', 'Flags:', ...flagRows(cmd.flags));
  const globals = flagsOf(cmd).filter((f) => GLOBAL_FLAGS.includes(f));
  if (opts.globals !== false) {
    out.push('', cmd.client === false ? 'Flags every command takes:' : 'Global flags (also before the command: termhost --addr X ls):', ...flagRows(globals));
  }
  if (cmd.examples.length > 0) out.push('', 'Examples:', ...cmd.examples.map((e) => `  ${e}`));
  return `${out.join('\n')}\n`;
}

export function overview(commands: Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const rows = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    'usage: termhost [global flags] COMMAND [flags] [args]',
    '',
    'Commands:',
    ...rows,
    '',
    'Global flags:',
    ...flagRows([...GLOBAL_FLAGS, { name: 'version', short: 'V', kind: 'boolean', help: 'print the version' }]),
    '',
    'termhost help COMMAND (or termhost COMMAND --help) shows a command\'s flags, defaults and examples.',
    '',
  ].join('\n');
}
