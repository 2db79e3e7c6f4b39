/** termhost screen: the screen as text, as JSON, or as styled ANSI. */
import { needArg, noMoreArgs } from '../args.js';
import { printJson, withClient } from '../context.js';
import type { Command } from './types.js';

export const screen: Command = {
  name: 'screen',
  summary: 'print the screen as text (trailing blank rows dropped)',
  args: 'ID',
  positionals: ['session'],
  flags: [
    { name: 'json', kind: 'boolean', help: 'the whole Screen object: lines, cursor, modes, exit state' },
    { name: 'raw', kind: 'boolean', help: 'styled ANSI that repaints the screen in your terminal' },
  ],
  examples: ['termhost screen 3f9c2a1b', 'termhost screen 3f9c2a1b --json | jq .cursor', 'termhost screen 3f9c2a1b --raw'],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    noMoreArgs(parsed, 1);
    return withClient(parsed, async (client) => {
      const s = await client.screen(id, { raw: parsed.flags.raw === true });
      if (parsed.flags.json) printJson(io, s);
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
