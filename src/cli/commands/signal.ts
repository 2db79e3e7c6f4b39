/** termhost signal ID SIG */
import { SIGNALS } from '../../core/index.js';
import { parseArgs, UsageError } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

export function signalName(s: string | undefined): string {
  const name = (s ?? '').toUpperCase().replace(/^SIG/, '');
  if (!(SIGNALS as readonly string[]).includes(name)) throw new UsageError(`signal must be one of ${SIGNALS.join(' ')}`);
  return name;
}

export const signal: Command = {
  name: 'signal',
  usage: `signal ID SIG   (${SIGNALS.join(' ')})`,
  summary: "signal the terminal's foreground process group, as Ctrl-C does; the session stays",
  async run(argv, io) {
    const parsed = parseArgs(argv, {});
    const [id, sig] = parsed.positional;
    if (!id) throw new UsageError('signal needs a session id and a signal');
    return withClient(parsed, async (client) => {
      const { signalled: to } = await client.signal(id, signalName(sig));
      io.out(to ? `SIG${to.signal} -> process group ${to.pgid}${to.command ? ` (${to.command})` : ''}\n` : 'no process left to signal\n');
      return 0;
    });
  },
};
