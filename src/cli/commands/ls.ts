/** termhost ls: one line per session. */
import { pairs, parseArgs } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

export const ls: Command = {
  name: 'ls',
  usage: 'ls [-label k=v]... [--json]',
  summary: 'list sessions',
  async run(argv, io) {
    const parsed = parseArgs(argv, { label: 'multi', json: 'boolean' });
    return withClient(parsed, async (client) => {
      const sessions = await client.listSessions(pairs(parsed.flags.label as string[] | undefined, 'label'));
      if (parsed.flags.json) {
        io.out(`${JSON.stringify(sessions, null, 2)}\n`);
        return 0;
      }
      for (const s of sessions) {
        const state = s.exited ? `exited(${s.exit_signal ?? s.exit_code})` : 'running';
        const labels = Object.entries(s.labels).map(([k, v]) => `${k}=${v}`).join(',');
        io.out(`${s.id}\t${s.pid}\t${s.cols}x${s.rows}\t${state}\t${s.command.join(' ')}${labels ? `\t${labels}` : ''}\n`);
      }
      return 0;
    });
  },
};
