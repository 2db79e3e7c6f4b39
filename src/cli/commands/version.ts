/** termhost version: this CLI's version (the same as termhost --version), and Node's. */
import { VERSION } from '../../version.js';
import { noMoreArgs } from '../args.js';
import { printJson } from '../context.js';
import type { Command } from './types.js';

export const version: Command = {
  name: 'version',
  summary: "print termhost's version (termhost doctor also asks the daemon for its own)",
  client: false,
  flags: [{ name: 'json', kind: 'boolean', help: 'print {termhost, node} as JSON' }],
  examples: ['termhost version', 'termhost --version'],
  async run(parsed, io) {
    noMoreArgs(parsed, 0);
    if (parsed.flags.json) printJson(io, { termhost: VERSION, node: process.versions.node });
    else io.out(`termhost ${VERSION} (node ${process.versions.node})\n`);
    return 0;
  },
};
