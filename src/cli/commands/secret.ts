/**
 * termhost secret: see or change a session's secret-input window from a terminal, for people who work over ssh and
 * have no browser: `--end` ends it (a person's token; once the session has been quiet 250 ms, which it waits out).
 */
import { needArg, noMoreArgs, UsageError } from '../args.js';
import { printJson, withClient } from '../context.js';
import type { Command } from './types.js';

/** How long `--end` keeps retrying while the session is still settling. */
const END_RETRY_MAX_MS = 10_000;

export const secret: Command = {
  name: 'secret',
  summary: "show a session's secret-input window, or --start / --end it (ending needs a person's token)",
  args: 'ID',
  details: [
    'While a window is open, agents see no screen and may only abort the prompt (C-c, C-d, a signal).',
    'Type the secret with `termhost attach -write ID`, then end the window here if it did not end by itself.',
  ],
  positionals: ['session'],
  flags: [
    { name: 'end', kind: 'boolean', help: 'end the window (waits out the 250 ms settling)' },
    { name: 'start', kind: 'boolean', help: 'open a window (anyone may: it only hides things)' },
    { name: 'reason', kind: 'string', value: 'TEXT', help: 'with --start: why, shown to the people watching', field: '/reason' },
    { name: 'json', kind: 'boolean', help: 'print the window state as JSON' },
  ],
  examples: ['termhost secret 3f9c2a1b', 'termhost secret 3f9c2a1b --end', "termhost secret 3f9c2a1b --start --reason 'typing the deploy key'"],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    noMoreArgs(parsed, 1);
    const f = parsed.flags;
    if (f.end && f.start) throw new UsageError('--start and --end cannot go together');
    if (f.reason !== undefined && !f.start) throw new UsageError('--reason goes with --start');
    return withClient(parsed, async (client) => {
      let state = await client.secretInput(id);
      if (f.start) state = await client.secretAction(id, 'start', f.reason as string | undefined);
      if (f.end) {
        const until = Date.now() + END_RETRY_MAX_MS;
        for (;;) {
          try {
            state = await client.secretAction(id, 'end');
            break;
          } catch (err) {
            const e = err as { code?: string; body?: { retry_after_ms?: number } };
            if (e.code !== 'secret_input_settling' || Date.now() > until) throw err;
            await new Promise((r) => setTimeout(r, Math.max(20, Number(e.body?.retry_after_ms ?? 100))));
          }
        }
      }
      if (f.json) printJson(io, state);
      else if (!state.active) io.out(`no secret-input window is open on ${id}\n`);
      else {
        const who = state.started_by ? `${state.started_by.kind} ${state.started_by.name}` : 'someone';
        io.out(`secret-input window open since ${state.since}, opened by ${who}: ${state.reason}\n`);
        io.out(state.input_received ? 'a person has typed into it\n' : 'waiting for a person to type the secret (termhost attach -write ' + id + ')\n');
      }
      return 0;
    });
  },
};
