/**
 * termhost run: type a command at a session's shell prompt, print its output, and exit with its exit status, as
 * `ssh host cmd` does. The output is printed whole (paged from the daemon once the command ended), not the screen.
 */
import { needArg, UsageError } from '../args.js';
import { printJson, withClient } from '../context.js';
import type { Command } from './types.js';

/** One wait request's length; a longer wait asks again. */
const WAIT_SLICE_MS = 60_000;
/** The exit statuses of termhost's own outcomes, as timeout(1) uses them. */
export const RUN_TIMED_OUT = 124;
export const RUN_INPUT_NEEDED = 125;
const PAGE_BYTES = 1024 * 1024;

export const run: Command = {
  name: 'run',
  summary: "run a command in a session's shell; print its output and exit with its status, like ssh host cmd",
  args: 'ID [--] COMMAND...',
  details: [
    'The words after the session form one command line, as ssh joins them; quote to keep them for the shell.',
    'Flags go before the session id: after it, every word belongs to the command.',
    'The session must be bash, zsh or fish with shell integration (the default for `termhost new`).',
    `Exits with the command's own status; ${RUN_TIMED_OUT} when --timeout passed first (the command keeps running),`,
    `${RUN_INPUT_NEEDED} when it waits for input (the prompt is on stderr; answer with termhost send, or attach).`,
    "Ctrl-C interrupts the command in the session, as in a terminal, and run exits with the command's status.",
  ],
  stopAfter: 1,
  positionals: ['session', 'command'],
  flags: [
    { name: 'timeout', kind: 'int', value: 'MS', min: 0, help: 'stop waiting after this long', default: 'wait until it ends' },
    { name: 'json', kind: 'boolean', help: 'print the CommandResult (status, exit_code, output within 16 KiB, times, cwd) as JSON' },
  ],
  examples: ["termhost run build -- make test", "termhost run 3f9c2a1b 'cd src && ls | wc -l'", 'termhost run --json build -- npm test | jq .exit_code'],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    // Flags go before the session, as with ssh: after it, every word is the command's (a `--` first is dropped).
    const words = parsed.positional.slice(parsed.positional[1] === '--' ? 2 : 1);
    if (words.length === 0) throw new UsageError('run needs a command after the session id');
    const command = words.join(' ');
    const limit = parsed.flags.timeout as number | undefined;
    const deadline = limit === undefined ? Infinity : Date.now() + limit;
    return withClient(parsed, async (client) => {
      const slice = () => Math.max(0, Math.min(WAIT_SLICE_MS, deadline - Date.now()));
      let interrupted = false;
      const onInt = () => {
        if (interrupted) return;
        interrupted = true;
        void client.input(id, [{ key: 'C-c' }]).catch(() => {});
      };
      process.on('SIGINT', onInt);
      try {
        let r = await client.run(id, command, { timeoutMs: slice() });
        while (r.status === 'running' && Date.now() < deadline) r = await client.command(id, r.id, { waitMs: slice() });
        if (parsed.flags.json) {
          printJson(io, r);
        } else {
          for (let offset = 0; ; ) {
            const page = await client.commandOutput(id, r.id, { offset, limit: PAGE_BYTES });
            io.out(page.output);
            if (page.eof) break;
            offset = page.next_offset;
          }
        }
        if (r.status === 'input_needed') {
          io.err(`termhost run: command ${r.id} waits for input (${r.input_needed?.kind}): ${JSON.stringify(r.input_needed?.prompt ?? '')}; answer with \`termhost send ${id} ...\` or \`termhost attach --write ${id}\`\n`);
          return RUN_INPUT_NEEDED;
        }
        if (r.status === 'running') {
          io.err(`termhost run: command ${r.id} is still running after --timeout ${limit} ms\n`);
          return RUN_TIMED_OUT;
        }
        return r.exit_code ?? 1;
      } finally {
        process.off('SIGINT', onInt);
      }
    });
  },
};
