/** termhost transcript: print a session's stored (redacted) output, or write it as an asciicast file (v3, or v2). */
import { intFlag, parseArgs, UsageError } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

export const transcript: Command = {
  name: 'transcript',
  usage: 'transcript ID [--cast [--cast-version 2|3] [--idle-limit SECONDS] [--markers]]',
  summary: 'print the stored output of a live or ended session (--cast: asciicast v3 for asciinema, --cast-version 2 for asciinema 2.x)',
  async run(argv, io) {
    const parsed = parseArgs(argv, { cast: 'boolean', 'cast-version': 'string', 'idle-limit': 'string', markers: 'boolean' });
    const [id] = parsed.positional;
    if (!id) throw new UsageError('transcript needs a session id');
    const f = parsed.flags;
    const version = intFlag(f['cast-version'], 'cast-version');
    if (version !== undefined && version !== 2 && version !== 3) throw new UsageError(`--cast-version is 2 or 3, got ${version}`);
    const idleLimit = f['idle-limit'] === undefined ? undefined : Number(f['idle-limit']);
    if (idleLimit !== undefined && !(idleLimit > 0)) throw new UsageError(`--idle-limit wants a number of seconds above 0, got "${String(f['idle-limit'])}"`);
    const castOnly = version !== undefined || idleLimit !== undefined || f.markers === true;
    if (castOnly && !f.cast) throw new UsageError('--cast-version, --idle-limit and --markers go with --cast');
    return withClient(parsed, async (client) => {
      if (f.cast) {
        io.out(await client.transcriptCast(id, { version, idleLimit, markers: f.markers === true }));
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
