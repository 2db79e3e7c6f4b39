/**
 * Which shells termhost integrates with, and how it starts them so the integration script loads after the user's own
 * files: bash with an rcfile that sources ~/.bashrc (or the login files), zsh through ZDOTDIR (whose .zshenv gives
 * ZDOTDIR back at once), fish with --init-command (run after config.fish). The scripts ship in the package's shell/
 * directory. Pure apart from reading the nonce's random bytes.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** active: the marks are expected; off: asked for none; unsupported: a program termhost cannot integrate with. */
export type ShellIntegration = 'active' | 'off' | 'unsupported';
export type KnownShell = 'bash' | 'zsh' | 'fish';

/** The package's shell/ directory: dist/core/shell/ and src/core/shell/ are both three levels down. */
export const SHELL_SCRIPTS_DIR = fileURLToPath(new URL('../../../shell/', import.meta.url));

/** The environment variable the scripts read the nonce from, and unset. */
export const NONCE_ENV = 'TERMHOST_SHELL_NONCE';

/** Programs that are shells: without integration a shell at its own prompt is not "a program waiting for input". */
const SHELLS = new Set(['sh', 'dash', 'ash', 'bash', 'zsh', 'fish', 'ksh', 'mksh', 'pdksh', 'busybox', 'tcsh', 'csh', 'yash', 'nu', 'elvish', 'xonsh']);

/** Flags that keep a shell interactive and reading its usual files; anything else (-c, a script) is not integrated. */
const INTERACTIVE_FLAGS = new Set(['-i', '-l', '--login', '--interactive']);

export interface ShellPlan {
  integration: ShellIntegration;
  /** The shell, when it is one termhost integrates with (also with integration off). */
  shell: KnownShell | undefined;
  /** The program is a shell of any kind (argv[0]'s name). */
  isShell: boolean;
  /** What to spawn. */
  argv: string[];
  env: Record<string, string>;
  /** The marks' nonce, when active. */
  nonce: string | undefined;
}

function shellName(file: string): string {
  return path.basename(file).replace(/^-/, '');
}

/** How to start `argv` (already resolved: never empty) with integration `wanted`, and what to expect from it. */
export function planShell(argv: readonly string[], env: Record<string, string>, wanted: boolean, scriptsDir = SHELL_SCRIPTS_DIR): ShellPlan {
  const [file, ...args] = argv;
  const name = shellName(file!);
  const known: KnownShell | undefined = name === 'bash' || name === 'zsh' || name === 'fish' ? name : undefined;
  const base = { shell: known, isShell: SHELLS.has(name), argv: [...argv], env };
  const interactive = args.every((a) => INTERACTIVE_FLAGS.has(a));
  if (!known || !interactive) return { ...base, integration: 'unsupported', nonce: undefined };
  if (!wanted) return { ...base, integration: 'off', nonce: undefined };
  const nonce = crypto.randomBytes(12).toString('hex');
  const e: Record<string, string> = { ...env, [NONCE_ENV]: nonce };
  const login = args.includes('-l') || args.includes('--login');
  let spawn: string[];
  if (known === 'bash') {
    // bash --login ignores --rcfile, so the script reads the login files itself when asked to.
    if (login) e.TERMHOST_SHELL_LOGIN = '1';
    spawn = [file!, '--rcfile', path.join(scriptsDir, 'bash', 'termhost.bash'), '-i'];
  } else if (known === 'zsh') {
    if (env.ZDOTDIR !== undefined) e.TERMHOST_ZDOTDIR = env.ZDOTDIR;
    e.ZDOTDIR = path.join(scriptsDir, 'zsh');
    spawn = [...argv];
  } else {
    spawn = [...argv, '--init-command', `source ${fishQuote(path.join(scriptsDir, 'fish', 'termhost.fish'))}`];
  }
  return { ...base, integration: 'active', argv: spawn, env: e, nonce };
}

/** A fish single-quoted word: only \ and ' are special inside. */
function fishQuote(s: string): string {
  return `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}
