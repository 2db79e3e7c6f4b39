/** termhost token: print the daemon's token (generating it if the daemon has not yet). */
import { defaultStateDir, loadOrCreateToken } from '../../config.js';
import { parseArgs } from '../args.js';
import type { Command } from './types.js';

export const token: Command = {
  name: 'token',
  usage: 'token [--state-dir D]',
  summary: 'print the bearer token stored in the state directory',
  async run(argv, io) {
    const parsed = parseArgs(argv, {});
    io.out(`${loadOrCreateToken((parsed.flags['state-dir'] as string | undefined) ?? defaultStateDir())}\n`);
    return 0;
  },
};
