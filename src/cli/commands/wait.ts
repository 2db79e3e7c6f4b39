/** termhost wait: block until text, a regex, quiet output, a stable screen or exit; exit status 0 when matched, 1 on timeout. */
import { intFlag, parseArgs, UsageError } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

export const wait: Command = {
  name: 'wait',
  usage: 'wait ID [--text T | --regex R | --quiet MS | --stable MS | --exit] [--timeout MS] [--json]',
  summary: 'wait for a screen condition or exit (default timeout 10000 ms, at most 60000)',
  async run(argv, io) {
    const parsed = parseArgs(argv, { text: 'string', regex: 'string', quiet: 'string', stable: 'string', exit: 'boolean', timeout: 'string', json: 'boolean' });
    const [id] = parsed.positional;
    if (!id) throw new UsageError('wait needs a session id');
    const f = parsed.flags;
    if (f.text === undefined && f.regex === undefined && f.quiet === undefined && f.stable === undefined && !f.exit) {
      throw new UsageError('wait needs at least one of --text, --regex, --quiet, --stable, --exit');
    }
    return withClient(parsed, async (client) => {
      const r = await client.wait(id, {
        text: f.text as string | undefined,
        regex: f.regex as string | undefined,
        quiet_ms: intFlag(f.quiet, 'quiet'),
        stable_ms: intFlag(f.stable, 'stable'),
        exit: f.exit === true ? true : undefined,
        timeout_ms: intFlag(f.timeout, 'timeout') ?? 10_000,
      });
      if (f.json) io.out(`${JSON.stringify(r, null, 2)}\n`);
      else {
        const exitNote = r.screen.exited ? ` (exit ${r.screen.exit_signal ?? r.screen.exit_code})` : '';
        io.out(`${r.matched ? 'matched' : 'not matched'}: ${r.reason}${exitNote}\n`);
      }
      return r.matched ? 0 : 1;
    });
  },
};
