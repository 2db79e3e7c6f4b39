/**
 * A throwaway HOME whose rc files set their own prompt and prompt hook, and an alias, for bash, zsh and fish: what
 * the shell-integration tests check is still honoured after termhost's script loads.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type TestShell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly TestShell[] = ['bash', 'zsh', 'fish'];

export interface ShellHome {
  dir: string;
  /** The environment a session of this shell gets: HOME and the XDG dirs under it. */
  env: Record<string, string>;
  /** The shell's history file, as its rc file sets it. */
  historyFile(shell: TestShell): string;
  /** The prompt the rc file draws, as it appears on the screen (first characters). */
  prompt(shell: TestShell): string;
  remove(): void;
}

export function makeShellHome(): ShellHome {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-home-'));
  fs.writeFileSync(
    path.join(dir, '.bashrc'),
    [
      "PS1='mine\\$ '",
      'PROMPT_COMMAND=\'printf "[pc:%s]" "$?"\'',
      "alias hello='echo hello-from-the-rc-file'",
      'HISTFILE=$HOME/.bash_history',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(dir, '.zshrc'),
    [
      "PS1='zmine%# '",
      'precmd() { print "[pc:$?]" }',
      "alias hello='echo hello-from-the-rc-file'",
      'HISTFILE=$HOME/.zsh_history',
      'SAVEHIST=100',
      'HISTSIZE=100',
      '',
    ].join('\n'),
  );
  fs.mkdirSync(path.join(dir, '.config', 'fish'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, '.config', 'fish', 'config.fish'),
    ['function fish_prompt; echo -n "fmine[$status]> "; end', "alias hello 'echo hello-from-the-rc-file'", 'set -g fish_greeting', ''].join('\n'),
  );
  return {
    dir,
    env: {
      HOME: dir,
      XDG_CONFIG_HOME: path.join(dir, '.config'),
      XDG_DATA_HOME: path.join(dir, '.local', 'share'),
    },
    historyFile: (shell) =>
      shell === 'bash' ? path.join(dir, '.bash_history') : shell === 'zsh' ? path.join(dir, '.zsh_history') : path.join(dir, '.local', 'share', 'fish', 'fish_history'),
    prompt: (shell) => (shell === 'bash' ? 'mine' : shell === 'zsh' ? 'zmine' : 'fmine['),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** Commands that mean the same in each shell. */
export const SAY = {
  exit3: (shell: TestShell) => (shell === 'fish' ? "fish -c 'exit 3'" : '(exit 3)'),
  /** A multi-line command: a heredoc where the shell has them, a block in fish (which has none). */
  multiLine: (shell: TestShell) => (shell === 'fish' ? 'begin\n  echo line-one\n  echo line-two\nend' : 'cat <<EOF\nline-one\nline-two\nEOF'),
};
