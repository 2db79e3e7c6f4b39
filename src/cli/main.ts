#!/usr/bin/env node
/** The termhost command: dispatch to one file per command, print server errors plainly, exit non-zero on failure. */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TermhostError } from '../client/TermhostClient.js';
import { UsageError } from './args.js';
import { stdio, type Io } from './context.js';
import { attach } from './commands/attach.js';
import { kill } from './commands/kill.js';
import { ls } from './commands/ls.js';
import { mcp } from './commands/mcp.js';
import { mouse } from './commands/mouse.js';
import { newSession } from './commands/new.js';
import { resize } from './commands/resize.js';
import { screen } from './commands/screen.js';
import { scrollback } from './commands/scrollback.js';
import { send } from './commands/send.js';
import { serve } from './commands/serve.js';
import { signal } from './commands/signal.js';
import { token } from './commands/token.js';
import { transcript } from './commands/transcript.js';
import type { Command } from './commands/types.js';
import { ui } from './commands/ui.js';
import { wait } from './commands/wait.js';

export const COMMANDS: Command[] = [serve, newSession, ls, send, screen, scrollback, resize, mouse, wait, signal, kill, attach, transcript, ui, token, mcp];

function usage(): string {
  const rows = COMMANDS.map((c) => `  termhost ${c.usage}\n      ${c.summary}`);
  return `usage:\n${rows.join('\n')}\n\nEvery client command takes --addr HOST:PORT|unix:/PATH and --token T\n(or TERMHOST_ADDR / TERMHOST_TOKEN; the token is found in the state dir otherwise).\n`;
}

export async function runCli(argv: string[], io: Io = stdio): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    io.out(usage());
    return name ? 0 : 2;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) {
    io.err(`termhost: unknown command "${name}"\n${usage()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-help')) {
    io.out(`usage: termhost ${cmd.usage}\n  ${cmd.summary}\n`);
    return 0;
  }
  try {
    return await cmd.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`termhost ${name}: ${err.message}\nusage: termhost ${cmd.usage}\n`);
      return 2;
    }
    if (err instanceof TermhostError) {
      io.err(`termhost ${name}: ${err.message}${err.code ? ` [${err.code}]` : ''}\n`);
      return 1;
    }
    io.err(`termhost ${name}: ${(err as Error).message}\n`);
    return 1;
  }
}

function invokedDirectly(): boolean {
  try {
    return fs.realpathSync(process.argv[1] ?? '') === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

// Run when executed as the bin, through any symlink (not when imported by tests).
if (invokedDirectly()) {
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
