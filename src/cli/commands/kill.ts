/** termhost kill ID [--signal SIG]: end the process group (escalating to KILL after 3 s) and delete the session. */
import { parseArgs, UsageError } from '../args.js';
import { withClient } from '../context.js';
import { signalName } from './signal.js';
import type { Command } from './types.js';

export const kill: Command = {
  name: 'kill',
  usage: 'kill ID [--signal SIG]',
  summary: 'kill the session (default HUP, then KILL after 3 s) and delete it',
  async run(argv, io) {
    const parsed = parseArgs(argv, { signal: 'string' });
    const [id] = parsed.positional;
    if (!id) throw new UsageError('kill needs a session id');
    return withClient(parsed, async (client) => {
      await client.deleteSession(id, parsed.flags.signal ? signalName(parsed.flags.signal as string) : undefined);
      void io;
      return 0;
    });
  },
};
