/** termhost new: start a session and print its id. */
import { Bounds } from '../../protocol/bounds.js';
import { pairs, UsageError } from '../args.js';
import { printJson, withClient } from '../context.js';
import type { Command } from './types.js';

const { dimensionMin: min, dimensionMax: max } = Bounds;

export const newSession: Command = {
  name: 'new',
  summary: 'start a session (default: your $SHELL) and print its id',
  args: '[--] [COMMAND [ARG...]]',
  details: ['Everything after the command is its own argv: `termhost new bash -l` passes -l to bash.'],
  stopAfter: 0,
  positionals: ['command'],
  flags: [
    { name: 'name', kind: 'string', value: 'NAME', help: 'a name to use wherever the id is (unique among live sessions)', field: '/name' },
    { name: 'cols', kind: 'int', value: 'N', help: 'terminal columns', default: '80', min, max, field: '/cols' },
    { name: 'rows', kind: 'int', value: 'N', help: 'terminal rows', default: '24', min, max, field: '/rows' },
    { name: 'cwd', kind: 'string', value: 'DIR', help: 'working directory', default: 'your current directory', field: '/cwd', complete: 'dir' },
    { name: 'env', kind: 'list', value: 'K=V', help: 'set an environment variable', field: '/env' },
    { name: 'label', kind: 'list', value: 'K=V', help: 'attach a label (ls --label filters on it)', field: '/labels' },
    { name: 'term', kind: 'string', value: 'T', help: 'TERM for the program', default: 'xterm-256color', field: '/term' },
    { name: 'profile', kind: 'string', value: 'NAME', help: "start one of the daemon's command profiles instead of a command (termhost profiles lists them)", field: '/profile' },
    { name: 'moderated', kind: 'boolean', help: 'agents may type only while a person is attached as driver (termhost moderate ID)', field: '/require_moderator' },
    {
      name: 'grace',
      kind: 'int',
      value: 'S',
      help: 'with --moderated: seconds to wait for a person before the session ends',
      default: "the daemon's, 300",
      min: Bounds.moderatorGraceMsMin / 1000,
      max: Bounds.moderatorGraceMsMax / 1000,
      field: '/moderator_grace_ms',
    },
    { name: 'rm', kind: 'boolean', help: 'free the session as soon as its program exits (its record and transcript stay)', field: '/remove_on_exit' },
    { name: 'json', kind: 'boolean', help: 'print the new session (SessionInfo) as JSON' },
  ],
  examples: [
    'termhost new bash',
    'termhost new --name build -- make -j8      # then: termhost attach build',
    'termhost new --cols 120 --rows 40 --cwd ~/src --env FOO=bar --label team=red -- htop',
    'ID=$(termhost new python3 -q)',
    'termhost new --rm -- make test            # gone from `ls` when it exits',
    'termhost new --profile py                 # a daemon started with --restrict-commands takes only profiles',
    'termhost new --moderated -- bash          # agents type only while a person is attached: termhost attach -write ID',
  ],
  async run(parsed, io) {
    const f = parsed.flags;
    const profile = f.profile as string | undefined;
    if (profile !== undefined && (parsed.positional.length > 0 || f.cwd !== undefined || f.env !== undefined || f.term !== undefined)) {
      throw new UsageError('--profile brings its own command, cwd, env and TERM; give only --name, --cols, --rows, --label, --moderated or --rm with it');
    }
    if (f.grace !== undefined && !f.moderated) throw new UsageError('--grace goes with --moderated');
    return withClient(parsed, async (client) => {
      const info = await client.createSession({
        name: f.name as string | undefined,
        profile,
        command: parsed.positional.length > 0 ? parsed.positional : undefined,
        cols: f.cols as number | undefined,
        rows: f.rows as number | undefined,
        // A profile has its own cwd (or the daemon's default); a command starts where the CLI was run.
        cwd: profile !== undefined ? undefined : ((f.cwd as string | undefined) ?? process.cwd()),
        env: f.env ? pairs(f.env as string[], 'env') : undefined,
        labels: f.label ? pairs(f.label as string[], 'label') : undefined,
        term: f.term as string | undefined,
        remove_on_exit: f.rm === true ? true : undefined,
        require_moderator: f.moderated === true ? true : undefined,
        moderator_grace_ms: f.grace === undefined ? undefined : (f.grace as number) * 1000,
      });
      if (f.json) printJson(io, info);
      else io.out(`${info.id}\n`);
      return 0;
    });
  },
};
