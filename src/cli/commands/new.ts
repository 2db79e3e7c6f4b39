/** termhost new: start a session and print its id. */
import { intFlag, pairs, parseArgs } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

export const newSession: Command = {
  name: 'new',
  usage: 'new [-cols N] [-rows N] [-cwd DIR] [-env K=V]... [-label k=v]... [-term T] [--] [cmd args...]',
  summary: 'start a session (default $SHELL) and print its id',
  async run(argv, io) {
    const parsed = parseArgs(argv, { cols: 'string', rows: 'string', cwd: 'string', env: 'multi', label: 'multi', term: 'string' }, 0);
    const f = parsed.flags;
    return withClient(parsed, async (client) => {
      const info = await client.createSession({
        command: parsed.positional.length > 0 ? parsed.positional : undefined,
        cols: intFlag(f.cols, 'cols'),
        rows: intFlag(f.rows, 'rows'),
        cwd: (f.cwd as string | undefined) ?? process.cwd(),
        env: f.env ? pairs(f.env as string[], 'env') : undefined,
        labels: f.label ? pairs(f.label as string[], 'label') : undefined,
        term: f.term as string | undefined,
      });
      io.out(`${info.id}\n`);
      return 0;
    });
  },
};
