/** termhost signal ID SIG */
import { SIGNAL_NAMES } from '../../protocol/bounds.js';
import { needArg, noMoreArgs, UsageError } from '../args.js';
import { printJson, withClient } from '../context.js';
import type { Command } from './types.js';

/** "int", "SIGINT" and "INT" are the same signal; the API wants the bare upper-case name. */
export function signalName(s: string): string {
  const name = s.toUpperCase().replace(/^SIG/, '');
  if (!(SIGNAL_NAMES as readonly string[]).includes(name)) throw new UsageError(`the signal is one of ${SIGNAL_NAMES.join(' ')}, not "${s}"`);
  return name;
}

export const signal: Command = {
  name: 'signal',
  summary: "signal the terminal's foreground process group, as Ctrl-C does (the session stays; kill ends it)",
  args: 'ID SIG',
  details: [
    `SIG is one of ${SIGNAL_NAMES.join(' ')}, with or without SIG, in any case. It prints which process group got it:`,
    'the command in the foreground of the terminal, as a Ctrl-C typed there would reach.',
  ],
  positionals: ['session', SIGNAL_NAMES],
  flags: [{ name: 'json', kind: 'boolean', help: 'print the answer (who got the signal, and the session) as JSON' }],
  examples: ['termhost signal 3f9c2a1b INT', 'termhost signal 3f9c2a1b sigterm'],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    const sig = signalName(needArg(parsed, 1, `a signal (${SIGNAL_NAMES.join(' ')})`));
    noMoreArgs(parsed, 2);
    return withClient(parsed, async (client) => {
      const answer = await client.signal(id, sig);
      const to = answer.signalled;
      if (parsed.flags.json) printJson(io, answer);
      else io.out(to ? `SIG${to.signal} -> process group ${to.pgid}${to.command ? ` (${to.command})` : ''}\n` : 'no process left to signal\n');
      return 0;
    });
  },
};
