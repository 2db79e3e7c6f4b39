/** termhost profiles: the daemon's command profiles this token may start (`termhost new --profile NAME`). */
import { noMoreArgs } from '../args.js';
import { printJson, printTable, withClient } from '../context.js';
import type { Command } from './types.js';

export const profiles: Command = {
  name: 'profiles',
  summary: "list the daemon's command profiles this token may start (termhost new --profile NAME)",
  details: [
    'Prints NAME, COMMAND, LABELS (tab-separated). On stderr it says when sessions start only from these profiles',
    '(a daemon with --restrict-commands, or a token limited to some).',
  ],
  flags: [{ name: 'json', kind: 'boolean', help: 'print the answer of GET /v1/profiles as JSON' }],
  examples: ['termhost profiles', 'termhost new --profile py'],
  async run(parsed, io) {
    noMoreArgs(parsed, 0);
    return withClient(parsed, async (client) => {
      const answer = await client.profiles();
      if (parsed.flags.json) printJson(io, answer);
      else {
        const labels = (l: Record<string, string>) => Object.entries(l).map(([k, v]) => `${k}=${v}`).join(',');
        printTable(io, ['NAME', 'COMMAND', 'LABELS'], answer.profiles.map((p) => [p.name, p.command.join(' '), labels(p.labels)]));
        if (answer.restricted) io.err('sessions start only from these profiles\n');
      }
      return 0;
    });
  },
};
