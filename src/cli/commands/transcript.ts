/** termhost transcript: print a session's stored (redacted) output, or write it as an asciicast v2 file. */
import { parseArgs, UsageError } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

export const transcript: Command = {
  name: 'transcript',
  usage: 'transcript ID [--cast]',
  summary: 'print the stored output of a live or ended session (--cast: asciicast v2 for asciinema)',
  async run(argv, io) {
    const parsed = parseArgs(argv, { cast: 'boolean' });
    const [id] = parsed.positional;
    if (!id) throw new UsageError('transcript needs a session id');
    return withClient(parsed, async (client) => {
      if (parsed.flags.cast) {
        io.out(await client.transcriptCast(id));
        return 0;
      }
      for (let from = 0; ; ) {
        const page = await client.transcript(id, { fromSeq: from });
        for (const c of page.chunks) io.out(c.text);
        if (!page.has_more || page.last_seq === null) return 0;
        from = page.last_seq + 1;
      }
    });
  },
};
