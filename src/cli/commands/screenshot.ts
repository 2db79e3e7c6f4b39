/** termhost screenshot: a picture of the screen, drawn by the daemon, written to a PNG or SVG file. */
import fs from 'node:fs';
import { Bounds, ROW_RANGE_PATTERN } from '../../protocol/bounds.js';
import { needArg, noMoreArgs, UsageError } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

const ROWS = new RegExp(ROW_RANGE_PATTERN);

export const screenshot: Command = {
  name: 'screenshot',
  summary: 'write a picture of the screen to a PNG or SVG file',
  args: 'ID',
  positionals: ['session'],
  details: ['The format follows the file name: .svg for SVG, anything else PNG. "-o -" writes a PNG to standard output.'],
  flags: [
    { name: 'output', short: 'o', kind: 'string', value: 'FILE', help: 'where to write the picture (required)', complete: 'file' },
    { name: 'format', kind: 'string', value: 'FMT', choices: ['png', 'svg'], help: 'png or svg, whatever the file is called' },
    { name: 'scale', kind: 'int', value: 'PX', help: 'pixels per cell row', default: String(Bounds.pictureScaleDefault), min: Bounds.pictureScaleMin, max: Bounds.pictureScaleMax, field: '/scale' },
    { name: 'max-width', kind: 'int', value: 'PX', help: 'at most this wide: the largest scale that fits', min: Bounds.pictureMaxWidthMin, max: Bounds.pictureMaxWidthMax, field: '/max_width' },
    { name: 'theme', kind: 'string', value: 'NAME', choices: ['dark', 'light'], help: 'colours', default: 'dark' },
    { name: 'rows', kind: 'string', value: 'A-B', help: 'only these screen rows (0-based, inclusive): 0-9, or 23' },
    { name: 'no-cursor', kind: 'boolean', help: 'leave the cursor out' },
  ],
  examples: ['termhost screenshot 3f9c2a1b -o screen.png', 'termhost screenshot 3f9c2a1b -o screen.svg --theme light', 'termhost screenshot 3f9c2a1b -o - --max-width 800 | display'],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    noMoreArgs(parsed, 1);
    const f = parsed.flags;
    const out = f.output;
    if (typeof out !== 'string' || out === '') throw new UsageError('screenshot needs -o FILE (or -o - for standard output)');
    const format = (f.format as 'png' | 'svg' | undefined) ?? (out.toLowerCase().endsWith('.svg') ? 'svg' : 'png');
    let rows: { first: number; last: number } | undefined;
    if (typeof f.rows === 'string') {
      if (!ROWS.test(f.rows)) throw new UsageError(`--rows wants a row or a range such as 0-9, got "${f.rows}"`);
      const [first, last] = f.rows.split('-').map(Number);
      rows = { first: first!, last: last ?? first! };
    }
    return withClient(parsed, async (client) => {
      const shot = await client.screenshot(id, {
        format,
        scale: f.scale as number | undefined,
        maxWidth: f['max-width'] as number | undefined,
        theme: f.theme as 'dark' | 'light' | undefined,
        rows,
        cursor: f['no-cursor'] === true ? false : undefined,
      });
      if (out === '-') process.stdout.write(shot.bytes);
      else {
        fs.writeFileSync(out, shot.bytes);
        io.err(`${out}: ${shot.width}x${shot.height} ${format.toUpperCase()} of ${id} (seq ${shot.seq})\n`);
      }
      return 0;
    });
  },
};
