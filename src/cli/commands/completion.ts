/** termhost completion bash|zsh: print a completion script made from the commands' own flag tables. */
import { needArg, noMoreArgs, UsageError } from '../args.js';
import type { Command } from './types.js';

const SHELLS = ['bash', 'zsh'] as const;

export const completion: Command = {
  name: 'completion',
  summary: 'print a shell completion script (bash or zsh)',
  args: 'SHELL',
  client: false,
  positionals: [SHELLS],
  flags: [],
  examples: ['eval "$(termhost completion bash)"          # in ~/.bashrc', 'source <(termhost completion zsh)          # in ~/.zshrc, after compinit'],
  async run(parsed, io) {
    const shell = needArg(parsed, 0, `a shell (${SHELLS.join(' or ')})`);
    noMoreArgs(parsed, 1);
    const [{ loadAllCommands }, gen] = await Promise.all([import('./index.js'), import('../completion.js')]);
    const commands = await loadAllCommands();
    if (shell === 'bash') io.out(gen.bashCompletion(commands));
    else if (shell === 'zsh') io.out(gen.zshCompletion(commands));
    else throw new UsageError(`no completion for "${shell}"; there is one for ${SHELLS.join(' and ')}`);
    return 0;
  },
};
