/** termhost kill ID [--signal SIG]: end the process group (escalating to KILL after 3 s) and delete the session. */
import { SIGNAL_NAMES } from '../../protocol/bounds.js';
import { needArg, noMoreArgs } from '../args.js';
import { withClient } from '../context.js';
import { signalName } from './signal.js';
import type { Command } from './types.js';

export const kill: Command = {
  name: 'kill',
  summary: 'end the session (its process group gets the signal, then KILL after 3 s) and delete it',
  args: 'ID',
  positionals: ['session'],
  flags: [{ name: 'signal', short: 's', kind: 'string', value: 'SIG', help: `the first signal: ${SIGNAL_NAMES.join(' ')}`, default: 'HUP' }],
  examples: ['termhost kill 3f9c2a1b', 'termhost kill 3f9c2a1b --signal TERM'],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    noMoreArgs(parsed, 1);
    const sig = parsed.flags.signal === undefined ? undefined : signalName(parsed.flags.signal as string);
    return withClient(parsed, async (client) => {
      await client.deleteSession(id, sig);
      void io;
      return 0;
    });
  },
};
