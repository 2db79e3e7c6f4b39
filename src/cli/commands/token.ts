/**
 * termhost token: print the daemon's own (admin) token; `create`, `ls` and `revoke` manage named tokens through the
 * running daemon, which stores only their hashes.
 */
import { ROLE_NAMES } from '../../protocol/bounds.js';
import { needArg, noMoreArgs, UsageError } from '../args.js';
import { printJson, printTable, withClient } from '../context.js';
import type { Command } from './types.js';

const SUBCOMMANDS = ['create', 'ls', 'revoke'] as const;

export const token: Command = {
  name: 'token',
  summary: "print the daemon's token, or manage named tokens (create, ls, revoke; admin only)",
  args: '[create --name NAME --role ROLE [--scope SCOPE] | ls | revoke NAME]',
  details: [
    'With no subcommand it prints the token in the state dir (creating it if there is none) and talks to no daemon.',
    'create prints the new secret alone on stdout, once; ls prints NAME, ROLE, SCOPE, CREATED_AT, PROFILES (tab-separated).',
    'A scope limits which sessions the token may know of: own (those it starts), labels:SELECTOR (such as',
    'labels:team=red,env!=prod) or sessions:ID,ID. Any other session is, for that token, a session that does not exist.',
  ],
  positionals: [SUBCOMMANDS],
  flags: [
    { name: 'name', kind: 'string', value: 'NAME', help: 'create: the token\'s name (1-64 letters, digits, . _ -)', field: '/name' },
    { name: 'role', kind: 'string', value: 'ROLE', help: 'create: what it may do', choices: ROLE_NAMES, field: '/role' },
    { name: 'scope', kind: 'string', value: 'SCOPE', help: 'create: which sessions it may know of: own, labels:SELECTOR or sessions:ID,ID', default: 'all', field: '/scope' },
    { name: 'profiles', kind: 'string', value: 'NAME,NAME', help: 'create: the command profiles it may start, and nothing else', field: '/profiles' },
    { name: 'json', kind: 'boolean', help: 'create, ls: print JSON' },
  ],
  examples: [
    'TOKEN=$(termhost token)',
    'AGENT=$(termhost token create --name claude --role agent)',
    'CI=$(termhost token create --name ci --role agent --scope own)',
    'termhost token ls',
    'termhost token revoke claude',
  ],
  async run(parsed, io) {
    const f = parsed.flags;
    const sub = parsed.positional[0];
    if (sub === undefined) {
      // The running daemon's own token (it may have been given with --token-file), else the state dir's.
      const { defaultStateDir, loadOrCreateToken, readDaemonRecord, readTokenFile } = await import('../../config.js');
      const stateDir = (f['state-dir'] as string | undefined) ?? defaultStateDir();
      const found = readDaemonRecord(stateDir);
      const running = found?.state === 'live' && found.record.token_file ? readTokenFile(found.record.token_file) : undefined;
      const secret = running ?? loadOrCreateToken(stateDir);
      if (f.json) printJson(io, { token: secret });
      else io.out(`${secret}\n`);
      return 0;
    }
    if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw new UsageError(`unknown token subcommand "${sub}" (create, ls or revoke)`);
    noMoreArgs(parsed, sub === 'revoke' ? 2 : 1);
    if (sub === 'create' && (f.name === undefined || f.role === undefined)) throw new UsageError(`token create needs --name and --role (${ROLE_NAMES.join('|')})`);
    if (sub !== 'create' && (f.scope !== undefined || f.profiles !== undefined)) throw new UsageError('--scope and --profiles belong to token create');
    const profiles = f.profiles === undefined ? undefined : (f.profiles as string).split(',').map((p) => p.trim());
    const name = sub === 'revoke' ? needArg(parsed, 1, 'the name of the token to revoke') : undefined;
    const { scopeFromText, scopeToText } = await import('../../protocol/scopeText.js');
    const scope = f.scope === undefined || f.scope === 'all' ? undefined : scopeFromText(f.scope as string);
    if (scope !== undefined && typeof scope === 'object' && 'error' in scope) throw new UsageError(`--scope: ${scope.error}`);
    return withClient(parsed, async (client) => {
      if (sub === 'create') {
        const created = await client.createToken(f.name as string, f.role as (typeof ROLE_NAMES)[number], { ...(scope === undefined ? {} : { scope }), ...(profiles ? { profiles } : {}) });
        if (f.json) printJson(io, created);
        else io.out(`${created.token}\n`);
        io.err(`created token "${created.name}" with role ${created.role} and scope ${scopeToText(created.scope)}; it is shown only this once\n`);
      } else if (sub === 'ls') {
        const tokens = await client.listTokens();
        if (f.json) printJson(io, tokens);
        else printTable(io, ['NAME', 'ROLE', 'SCOPE', 'CREATED_AT', 'PROFILES'], tokens.map((t) => [t.name, t.role, scopeToText(t.scope), t.created_at ?? '(daemon token)', t.profiles?.join(',') ?? 'any']));
      } else await client.revokeToken(name!);
      return 0;
    });
  },
};
