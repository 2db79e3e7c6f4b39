/** termhost scrollback: lines that scrolled off the top. */
import { intFlag, parseArgs, UsageError } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

export const scrollback: Command = {
  name: 'scrollback',
  usage: 'scrollback ID [-n N]',
  summary: 'print the last N scrollback lines (default 100)',
  async run(argv, io) {
    const parsed = parseArgs(argv, { n: 'string' });
    const [id] = parsed.positional;
    if (!id) throw new UsageError('scrollback needs a session id');
    return withClient(parsed, async (client) => {
      const r = await client.scrollback(id, intFlag(parsed.flags.n, 'n'));
      io.out(r.lines.map((l) => `${l}\n`).join(''));
      return 0;
    });
  },
};
