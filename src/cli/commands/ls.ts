/** termhost ls: one line per session. */
import { noMoreArgs, pairs } from '../args.js';
import { printJson, printTable, withClient } from '../context.js';
import type { Command } from './types.js';

export const ls: Command = {
  name: 'ls',
  summary: 'list sessions',
  details: ['Columns: ID, NAME, PID, SIZE, STATE, COMMAND, LABELS, separated by tabs (- for no name); a header line only on a terminal.'],
  flags: [
    { name: 'label', kind: 'list', value: 'K=V', help: 'only sessions with this label' },
    { name: 'quiet', short: 'q', kind: 'boolean', help: 'print only the ids' },
    { name: 'json', kind: 'boolean', help: 'print the sessions as JSON (SessionInfo objects)' },
  ],
  examples: ['termhost ls', 'termhost ls --label team=red', 'termhost ls -q | xargs -n1 termhost kill'],
  async run(parsed, io) {
    const f = parsed.flags;
    noMoreArgs(parsed, 0);
    return withClient(parsed, async (client) => {
      const sessions = await client.listSessions(pairs(f.label as string[] | undefined, 'label'));
      if (f.json) printJson(io, sessions);
      else if (f.quiet) io.out(sessions.map((s) => `${s.id}\n`).join(''));
      else {
        const rows = sessions.map((s) => [
          s.id,
          s.name ?? '-',
          String(s.pid),
          `${s.cols}x${s.rows}`,
          s.exited ? `exited(${s.exit_signal ?? s.exit_code})` : 'running',
          s.command.join(' '),
          Object.entries(s.labels).map(([k, v]) => `${k}=${v}`).join(','),
        ]);
        printTable(io, ['ID', 'NAME', 'PID', 'SIZE', 'STATE', 'COMMAND', 'LABELS'], rows);
      }
      return 0;
    });
  },
};
