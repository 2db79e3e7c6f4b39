/** termhost scrollback: lines that scrolled off the top. */
import { Bounds } from '../../protocol/bounds.js';
import { needArg, noMoreArgs } from '../args.js';
import { printJson, withClient } from '../context.js';
import type { Command } from './types.js';

export const scrollback: Command = {
  name: 'scrollback',
  summary: 'print the last lines that scrolled off the top of the screen',
  args: 'ID',
  positionals: ['session'],
  flags: [
    { name: 'lines', short: 'n', kind: 'int', value: 'N', help: 'how many lines', default: '100', min: 0, max: Bounds.scrollbackLinesMax, field: '/lines' },
    { name: 'json', kind: 'boolean', help: 'print {lines, total} as JSON' },
  ],
  examples: ['termhost scrollback 3f9c2a1b -n 50', 'termhost scrollback 3f9c2a1b --lines 1000 | grep error'],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    noMoreArgs(parsed, 1);
    return withClient(parsed, async (client) => {
      const r = await client.scrollback(id, parsed.flags.lines as number | undefined);
      if (parsed.flags.json) printJson(io, r);
      else io.out(r.lines.map((l) => `${l}\n`).join(''));
      return 0;
    });
  },
};
