/** termhost prune: free every session whose program has exited, now (their records and transcripts stay). */
import { noMoreArgs } from '../args.js';
import { printJson, withClient } from '../context.js';
import type { Command } from './types.js';

export const prune: Command = {
  name: 'prune',
  summary: 'free every session whose program has exited (records and transcripts stay)',
  details: ['An exited session is otherwise kept, with its final screen, for `serve --exited-ttl` (default 1 h).'],
  flags: [{ name: 'json', kind: 'boolean', help: 'print {"removed": [ids]} as JSON' }],
  examples: ['termhost prune', 'termhost prune --json | jq -r ".removed[]"'],
  async run(parsed, io) {
    noMoreArgs(parsed, 0);
    return withClient(parsed, async (client) => {
      const { removed } = await client.prune();
      if (parsed.flags.json) printJson(io, { removed });
      else for (const id of removed) io.out(`${id}\n`);
      return 0;
    });
  },
};
