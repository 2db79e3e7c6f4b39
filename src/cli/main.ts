#!/usr/bin/env node
/**
 * The termhost command: global flags, then one file per command (commands/), whose table parses its flags and whose
 * `run` loads what it needs. Errors are printed in the CLI's words: a usage mistake exits 2 with the usage line, a
 * refusal by the daemon exits 1 with its message and code, a validation error names the flag that caused it.
 */
// Named imports of Node's modules on the `termhost ls` path: in the CommonJS bundle (scripts/build-cli.mjs) a default
// import costs a copy of every export of the module, on each start.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { closest, parseArgs, UsageError, type Parsed } from './args.js';
import { COMMAND_NAMES, loadAllCommands, loadCommand } from './commands/index.js';
import type { Command } from './commands/types.js';
import { stdio, type Io } from './context.js';

// Help and error wording are loaded when they are needed: a command that succeeds loads neither.
const help = () => import('./help.js');

/** What may come before the command: the global flags, and --version. */
const TOP: Pick<Command, 'flags' | 'stopAfter'> = {
  flags: [{ name: 'version', short: 'V', kind: 'boolean', help: 'print the version' }],
  stopAfter: 0,
};

export async function runCli(argv: string[], io: Io = stdio): Promise<number> {
  let top: Parsed;
  try {
    top = parseArgs(argv, TOP);
  } catch (err) {
    io.err(`termhost: ${(err as Error).message}\n`);
    return 2;
  }
  const [name, ...rest] = top.positional;
  top.positional = [];
  if (top.flags.version) {
    const { VERSION } = await import('../version.js');
    io.out(`termhost ${VERSION}\n`);
    return 0;
  }
  if (name === undefined || (name === 'help' && rest.length === 0)) {
    io.out((await help()).overview(await loadAllCommands()));
    return name === undefined && !top.flags.help ? 2 : 0;
  }
  if (name === 'help') {
    const cmd = await lookup(rest[0]!, io);
    if (!cmd) return 2;
    io.out((await help()).commandHelp(cmd));
    return 0;
  }
  const cmd = await lookup(name, io);
  if (!cmd) return 2;
  try {
    const parsed = parseArgs(rest, cmd, top);
    if (parsed.flags.help) {
      io.out((await help()).commandHelp(cmd));
      return 0;
    }
    return await cmd.run(parsed, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`termhost ${cmd.name}: ${err.message}\nusage: ${(await help()).usageLine(cmd)}   (termhost help ${cmd.name})\n`);
      return 2;
    }
    const { describeServerError, isServerError } = await import('./errors.js');
    if (isServerError(err)) {
      io.err(`termhost ${cmd.name}: ${describeServerError(err, cmd)}\n`);
      // A malformed --addr or an unreadable --ca is the caller's mistake, like any other bad flag; the rest came from
      // (or missed) a daemon.
      return err.code === 'invalid_address' || err.code === 'invalid_ca' ? 2 : 1;
    }
    io.err(`termhost ${cmd.name}: ${(err as Error).message}\n`);
    return 1;
  }
}

async function lookup(name: string, io: Io): Promise<Command | undefined> {
  const cmd = await loadCommand(name);
  if (cmd) return cmd;
  const near = closest(name, COMMAND_NAMES);
  io.err(`termhost: unknown command "${name}"${near ? `; did you mean "${near}"?` : ''} (termhost help lists them)\n`);
  return undefined;
}

function invokedDirectly(): boolean {
  try {
    return realpathSync(process.argv[1] ?? '') === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

// Run when executed as the bin, through any symlink (not when imported by tests).
if (invokedDirectly()) {
  // `termhost transcript ID | head`: once the reader is gone there is nobody to tell anything, so stop quietly, as a
  // tool killed by SIGPIPE would, but with status 0 (Node ignores SIGPIPE, and a pipeline did get what it asked for).
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    });
  }
  runCli(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`termhost: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
