/** termhost transcript: print a session's stored (redacted) output, or write it as an asciicast v2 file. */
import type { TranscriptPage } from '../../client/TermhostClient.js';
import { needArg, noMoreArgs } from '../args.js';
import { printJson, withClient } from '../context.js';
import type { Command } from './types.js';

export const transcript: Command = {
  name: 'transcript',
  summary: 'print the stored output of a live or ended session, escape sequences and all',
  args: 'ID',
  positionals: ['session'],
  flags: [
    { name: 'cast', kind: 'boolean', help: 'write an asciicast v2 file instead (asciinema play)' },
    { name: 'json', kind: 'boolean', help: 'print the stored chunks (seq, time, text) as JSON' },
  ],
  examples: ['termhost transcript 3f9c2a1b | less -R', 'termhost transcript 3f9c2a1b --cast > run.cast && asciinema play run.cast'],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    noMoreArgs(parsed, 1);
    return withClient(parsed, async (client) => {
      if (parsed.flags.cast) {
        io.out(await client.transcriptCast(id));
        return 0;
      }
      const chunks: TranscriptPage['chunks'] = [];
      for (let from = 0; ; ) {
        const page = await client.transcript(id, { fromSeq: from });
        if (parsed.flags.json) chunks.push(...page.chunks);
        else for (const c of page.chunks) io.out(c.text);
        if (!page.has_more || page.last_seq === null) break;
        from = page.last_seq + 1;
      }
      if (parsed.flags.json) printJson(io, chunks);
      return 0;
    });
  },
};
