/**
 * termhost token: print the daemon's own (admin) token; `create`, `ls` and `revoke` manage named tokens through the
 * running daemon, which stores only their hashes.
 */
import { defaultStateDir, loadOrCreateToken } from '../../config.js';
import { ROLE_ORDER } from '../../core/index.js';
import { parseArgs, UsageError } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

export const token: Command = {
  name: 'token',
  usage: 'token | token create --name NAME --role admin|human|agent|viewer | token ls | token revoke NAME',
  summary: "print the daemon's token, or manage named tokens (admin)",
  async run(argv, io) {
    const parsed = parseArgs(argv, { name: 'string', role: 'string' });
    const [sub, arg] = parsed.positional;
    if (sub === undefined) {
      io.out(`${loadOrCreateToken((parsed.flags['state-dir'] as string | undefined) ?? defaultStateDir())}\n`);
      return 0;
    }
    return withClient(parsed, async (client) => {
      if (sub === 'create') {
        const name = parsed.flags.name as string | undefined;
        const role = parsed.flags.role as string | undefined;
        if (!name || !role || !(ROLE_ORDER as readonly string[]).includes(role)) {
          throw new UsageError(`token create needs --name and --role (${ROLE_ORDER.join('|')})`);
        }
        const created = await client.createToken(name, role as (typeof ROLE_ORDER)[number]);
        io.out(`${created.token}\n`);
        io.err(`created token "${created.name}" with role ${created.role}; it is shown only this once\n`);
        return 0;
      }
      if (sub === 'ls') {
        for (const t of await client.listTokens()) io.out(`${t.name}\t${t.role}\t${t.created_at ?? '(daemon token)'}\n`);
        return 0;
      }
      if (sub === 'revoke') {
        if (!arg) throw new UsageError('token revoke needs a token name');
        await client.revokeToken(arg);
        return 0;
      }
      throw new UsageError(`unknown token subcommand "${sub}"`);
    });
  },
};
