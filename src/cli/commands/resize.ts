/** termhost resize ID WxH */
import { parseArgs, UsageError } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

export const resize: Command = {
  name: 'resize',
  usage: 'resize ID COLSxROWS',
  summary: 'resize the terminal (the app gets SIGWINCH)',
  async run(argv, io) {
    const parsed = parseArgs(argv, {});
    const [id, size] = parsed.positional;
    const m = /^(\d+)x(\d+)$/.exec(size ?? '');
    if (!id || !m) throw new UsageError('resize needs a session id and a size such as 120x40');
    return withClient(parsed, async (client) => {
      const info = await client.resize(id, Number(m[1]), Number(m[2]));
      io.out(`${info.cols}x${info.rows}\n`);
      return 0;
    });
  },
};
