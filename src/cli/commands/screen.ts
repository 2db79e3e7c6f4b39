/** termhost screen: the screen as text, as JSON, or as styled ANSI. */
import { parseArgs, UsageError } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

export const screen: Command = {
  name: 'screen',
  usage: 'screen ID [--json | --raw]',
  summary: 'print the screen (plain text; --json full state; --raw styled ANSI)',
  async run(argv, io) {
    const parsed = parseArgs(argv, { json: 'boolean', raw: 'boolean' });
    const [id] = parsed.positional;
    if (!id) throw new UsageError('screen needs a session id');
    return withClient(parsed, async (client) => {
      const s = await client.screen(id, { raw: parsed.flags.raw === true });
      if (parsed.flags.json) io.out(`${JSON.stringify(s, null, 2)}\n`);
      else if (parsed.flags.raw) io.out(`${s.raw ?? ''}\x1b[0m\n`);
      else {
        const lines = [...s.lines];
        while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
        io.out(lines.length ? `${lines.join('\n')}\n` : '');
      }
      return 0;
    });
  },
};
