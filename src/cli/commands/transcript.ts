/** termhost transcript: print a session's stored (redacted) output, or write it as an asciicast file (v3, or v2) or a GIF. */
import fs from 'node:fs';
import type { TranscriptPage } from '../../client/TermhostClient.js';
import { Bounds } from '../../protocol/bounds.js';
import { needArg, noMoreArgs, UsageError } from '../args.js';
import { printJson, withClient } from '../context.js';
import type { Command } from './types.js';

export const transcript: Command = {
  name: 'transcript',
  summary: 'print the stored output of a live or ended session, escape sequences and all',
  args: 'ID',
  positionals: ['session'],
  flags: [
    { name: 'cast', kind: 'boolean', help: 'write an asciicast file instead (v3; asciinema play)' },
    { name: 'cast-version', kind: 'string', value: 'N', choices: ['2', '3'], help: 'with --cast: 2 for asciinema 2.x (Debian\'s)', default: '3' },
    { name: 'gif', kind: 'string', value: 'FILE', help: 'write an animated GIF instead, drawn as screenshots are', complete: 'file' },
    { name: 'idle-limit', kind: 'string', value: 'SECONDS', help: 'with --cast or --gif: cap every pause at this many seconds' },
    { name: 'speed', kind: 'string', value: 'X', help: 'with --gif: play X times as fast (0.1..100)', default: '1' },
    { name: 'markers', kind: 'boolean', help: 'with --cast: add markers (secret-input windows, resizes)' },
    { name: 'audit', kind: 'boolean', help: 'with --cast: add the audit trail as markers (who attached, typed, resized...; human role)' },
    { name: 'json', kind: 'boolean', help: 'print the stored chunks (seq, time, text) as JSON' },
  ],
  examples: [
    'termhost transcript 3f9c2a1b | less -R',
    'termhost transcript 3f9c2a1b --cast > run.cast && asciinema play run.cast',
    'termhost transcript 3f9c2a1b --cast --cast-version 2 --idle-limit 2 > run.cast',
    'termhost transcript 3f9c2a1b --gif run.gif --idle-limit 1 --speed 2',
  ],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    noMoreArgs(parsed, 1);
    const f = parsed.flags;
    const version = f['cast-version'] === undefined ? undefined : Number(f['cast-version']);
    const idleLimit = f['idle-limit'] === undefined ? undefined : Number(f['idle-limit']);
    if (idleLimit !== undefined && !(idleLimit > 0)) throw new UsageError(`--idle-limit wants a number of seconds above 0, got "${String(f['idle-limit'])}"`);
    const speed = f.speed === undefined ? undefined : Number(f.speed);
    if (speed !== undefined && !(speed >= Bounds.gifSpeedMin && speed <= Bounds.gifSpeedMax)) {
      throw new UsageError(`--speed wants a number from ${Bounds.gifSpeedMin} to ${Bounds.gifSpeedMax}, got "${String(f.speed)}"`);
    }
    const gif = typeof f.gif === 'string' ? f.gif : undefined;
    if (gif !== undefined && f.cast) throw new UsageError('--gif and --cast each write the transcript; choose one');
    if (speed !== undefined && gif === undefined) throw new UsageError('--speed goes with --gif');
    const castOnly = version !== undefined || f.markers === true || f.audit === true;
    if (castOnly && !f.cast) throw new UsageError('--cast-version, --markers and --audit go with --cast');
    if (idleLimit !== undefined && !f.cast && gif === undefined) throw new UsageError('--idle-limit goes with --cast or --gif');
    return withClient(parsed, async (client) => {
      if (gif !== undefined) {
        const drawn = await client.transcriptGif(id, { idleLimit, speed });
        fs.writeFileSync(gif, drawn.bytes);
        io.err(`${gif}: ${drawn.frames} frames of ${id}\n`);
        return 0;
      }
      if (f.cast) {
        io.out(await client.transcriptCast(id, { version: version as 2 | 3 | undefined, idleLimit, markers: f.markers === true, audit: f.audit === true }));
        return 0;
      }
      const chunks: TranscriptPage['chunks'] = [];
      for (let from = 0; ; ) {
        const page = await client.transcript(id, { fromSeq: from });
        if (f.json) chunks.push(...page.chunks);
        else for (const c of page.chunks) io.out(c.text);
        if (!page.has_more || page.last_seq === null) break;
        from = page.last_seq + 1;
      }
      if (f.json) printJson(io, chunks);
      return 0;
    });
  },
};
