/** termhost signal ID SIG */
import { SIGNAL_NAMES } from '../../protocol/bounds.js';
import { needArg, noMoreArgs, UsageError } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

/** "int", "SIGINT" and "INT" are the same signal; the API wants the bare upper-case name. */
export function signalName(s: string): string {
  const name = s.toUpperCase().replace(/^SIG/, '');
  if (!(SIGNAL_NAMES as readonly string[]).includes(name)) throw new UsageError(`the signal is one of ${SIGNAL_NAMES.join(' ')}, not "${s}"`);
  return name;
}

export const signal: Command = {
  name: 'signal',
  summary: 'send a signal to the session (it stays; see kill to end it)',
  args: 'ID SIG',
  details: [`SIG is one of ${SIGNAL_NAMES.join(' ')}, with or without SIG, in any case.`],
  positionals: ['session', SIGNAL_NAMES],
  flags: [],
  examples: ['termhost signal 3f9c2a1b INT', 'termhost signal 3f9c2a1b sigterm'],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    const sig = signalName(needArg(parsed, 1, `a signal (${SIGNAL_NAMES.join(' ')})`));
    noMoreArgs(parsed, 2);
    return withClient(parsed, async (client) => {
      await client.signal(id, sig);
      void io;
      return 0;
    });
  },
};
