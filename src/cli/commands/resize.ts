/** termhost resize ID COLSxROWS */
import { Bounds } from '../../protocol/bounds.js';
import { needArg, noMoreArgs, UsageError } from '../args.js';
import { printJson, withClient } from '../context.js';
import type { Command } from './types.js';

const { dimensionMin: min, dimensionMax: max } = Bounds;

export const resize: Command = {
  name: 'resize',
  summary: 'resize the terminal (the program gets SIGWINCH) and print the new size',
  args: 'ID COLSxROWS',
  positionals: ['session'],
  fields: { '/cols': 'COLS', '/rows': 'ROWS' },
  flags: [{ name: 'json', kind: 'boolean', help: 'print the session (SessionInfo) as JSON' }],
  examples: ['termhost resize 3f9c2a1b 120x40'],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    const size = needArg(parsed, 1, 'a size such as 120x40');
    noMoreArgs(parsed, 2);
    const m = /^(\d{1,7})x(\d{1,7})$/.exec(size);
    if (!m) throw new UsageError(`the size is COLSxROWS, such as 120x40, not "${size}"`);
    const [cols, rows] = [Number(m[1]), Number(m[2])];
    for (const [n, what] of [[cols, 'COLS'], [rows, 'ROWS']] as const) {
      if (n < min || n > max) throw new UsageError(`${what} must be ${min}..${max}, got ${n}`);
    }
    return withClient(parsed, async (client) => {
      const info = await client.resize(id, cols, rows);
      if (parsed.flags.json) printJson(io, info);
      else io.out(`${info.cols}x${info.rows}\n`);
      return 0;
    });
  },
};
