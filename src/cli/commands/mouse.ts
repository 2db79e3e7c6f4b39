/** termhost mouse ID TYPE X,Y */
import type { MouseRequest } from '../../protocol/http.js';
import { parseArgs, UsageError } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

const TYPES = ['press', 'release', 'click', 'move', 'drag', 'scroll'];

export const mouse: Command = {
  name: 'mouse',
  usage: 'mouse ID TYPE X,Y [--button left|middle|right|wheel-up|wheel-down] [--mod ctrl,alt,shift]',
  summary: 'send a mouse event at 0-based cell X,Y',
  async run(argv, io) {
    const parsed = parseArgs(argv, { button: 'string', mod: 'string' });
    const [id, type, at] = parsed.positional;
    const m = /^(\d+),(\d+)$/.exec(at ?? '');
    if (!id || !type || !TYPES.includes(type) || !m) {
      throw new UsageError(`mouse needs a session id, a type (${TYPES.join('|')}) and X,Y`);
    }
    const event = {
      type,
      x: Number(m[1]),
      y: Number(m[2]),
      button: parsed.flags.button as string | undefined,
      modifiers: parsed.flags.mod ? String(parsed.flags.mod).split(',').filter(Boolean) : undefined,
    } as MouseRequest;
    return withClient(parsed, async (client) => {
      await client.mouse(id, event);
      void io;
      return 0;
    });
  },
};
