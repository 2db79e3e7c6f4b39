/** termhost commands: the commands a session's shell ran (the last 100), typed by anyone. */
import { needArg, noMoreArgs } from '../args.js';
import { printJson, printTable, withClient } from '../context.js';
import type { Command } from './types.js';

export const commands: Command = {
  name: 'commands',
  summary: "list the commands a session's shell ran, with exit status, duration and directory",
  args: 'ID',
  details: ['Columns: ID, STATUS, EXIT, STARTED, DURATION, CWD, COMMAND, separated by tabs (- for none); a header line only on a terminal.'],
  positionals: ['session'],
  flags: [{ name: 'json', kind: 'boolean', help: 'print the commands as JSON (CommandSummary objects)' }],
  examples: ['termhost commands build', "termhost commands build | awk -F'\\t' '$3 != 0'"],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    noMoreArgs(parsed, 1);
    return withClient(parsed, async (client) => {
      const list = await client.commands(id);
      if (parsed.flags.json) printJson(io, list);
      else {
        const rows = list.map((c) => [
          c.id,
          c.status,
          c.exit_code === null ? '-' : String(c.exit_code),
          c.started_at,
          c.duration_ms === null ? '-' : `${(c.duration_ms / 1000).toFixed(1)}s`,
          c.cwd ?? '-',
          c.command,
        ]);
        printTable(io, ['ID', 'STATUS', 'EXIT', 'STARTED', 'DURATION', 'CWD', 'COMMAND'], rows);
      }
      return 0;
    });
  },
};
