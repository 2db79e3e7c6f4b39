/**
 * Shell completion scripts, generated from the commands' tables: commands, each command's flags and their values
 * (choices, files, directories, session ids), and positional arguments. Session ids come from `termhost ls -q` at
 * completion time, with the flags already on the line (--addr, --state-dir...) so they name the same daemon.
 */
import { flagsOf, GLOBAL_FLAGS } from './args.js';
import type { Command, Flag } from './commands/types.js';

type Kind = Flag['complete'] | 'command' | readonly string[] | undefined;

const spellings = (f: Flag) => [`--${f.name}`, ...(f.short ? [`-${f.short}`] : [])];

/** Single-quoted for sh: safe for any text. */
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function bashValue(kind: Kind): string {
  if (kind === 'file') return 'COMPREPLY=($(compgen -f -- "$cur"))';
  if (kind === 'dir') return 'COMPREPLY=($(compgen -d -- "$cur"))';
  if (kind === 'session') return 'COMPREPLY=($(compgen -W "$(_termhost_sessions)" -- "$cur"))';
  if (kind === 'command') return 'COMPREPLY=($(compgen -c -- "$cur"))';
  if (Array.isArray(kind)) return `COMPREPLY=($(compgen -W ${sq(kind.join(' '))} -- "$cur"))`;
  return 'COMPREPLY=()';
}

export function bashCompletion(commands: Command[]): string {
  const globalValue = GLOBAL_FLAGS.filter((f) => f.kind !== 'boolean').flatMap(spellings);
  const cases = commands.map((c) => {
    const flags = flagsOf(c);
    const valueFlags = flags.filter((f) => f.kind !== 'boolean');
    const valueCases = valueFlags.map((f) => `        ${[...spellings(f), `-${f.name}`].join('|')}) ${bashValue(f.choices ?? f.complete)}; return ;;`);
    const pos = (c.positionals ?? []).map((p, i) => `        ${i}) ${bashValue(p)} ;;`);
    const rest = c.stopAfter !== undefined && c.positionals?.length ? `        *) ${bashValue(c.positionals.at(-1))} ;;` : '';
    return [
      `    ${c.name})`,
      `      flags=${sq(flags.flatMap(spellings).join(' '))}`,
      `      case "$prev" in`,
      ...valueCases,
      `      esac`,
      `      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$flags" -- "$cur")); return; fi`,
      `      case "$npos" in`,
      ...pos,
      ...(rest ? [rest] : []),
      `      esac ;;`,
    ].join('\n');
  });
  return `# bash completion for termhost: eval "$(termhost completion bash)", e.g. in ~/.bashrc
_termhost_sessions() {
  termhost "\${_termhost_globals[@]}" ls -q 2>/dev/null
}
_termhost() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local cmd="" npos=0 i=1 w flags valueflags
  local -a _termhost_globals=()
  # Find the command, the flags before it (kept for _termhost_sessions) and how many arguments follow it.
  while [ "$i" -lt "$COMP_CWORD" ]; do
    w="\${COMP_WORDS[i]}"
    if [ -z "$cmd" ]; then
      case "$w" in
        ${globalValue.join('|')}) _termhost_globals+=("$w" "\${COMP_WORDS[i+1]}"); i=$((i+1)) ;;
        -*) ;;
        *) cmd="$w" ;;
      esac
    else
      case " $valueflags " in
        *" $w "*) i=$((i+1)) ;;
        *) [[ "$w" == -* && "$w" != "-" ]] || npos=$((npos+1)) ;;
      esac
    fi
    i=$((i+1))
    if [ -n "$cmd" ] && [ -z "$valueflags" ]; then _termhost_valueflags "$cmd"; fi
  done
  if [ -z "$cmd" ]; then
    case "$prev" in
      ${globalValue.join('|')}) COMPREPLY=(); [[ "$prev" == *state-dir ]] && COMPREPLY=($(compgen -d -- "$cur")); return ;;
    esac
    if [[ "$cur" == -* ]]; then
      COMPREPLY=($(compgen -W ${sq([...GLOBAL_FLAGS.flatMap(spellings), '--version'].join(' '))} -- "$cur"))
    else
      COMPREPLY=($(compgen -W ${sq(['help', ...commands.map((c) => c.name)].join(' '))} -- "$cur"))
    fi
    return
  fi
  case "$cmd" in
    help) COMPREPLY=($(compgen -W ${sq(commands.map((c) => c.name).join(' '))} -- "$cur")) ;;
${cases.join('\n')}
  esac
}
_termhost_valueflags() {
  case "$1" in
${commands.map((c) => `    ${c.name}) valueflags=${sq(flagsOf(c).filter((f) => f.kind !== 'boolean').flatMap((f) => [...spellings(f), `-${f.name}`]).join(' '))} ;;`).join('\n')}
  esac
}
complete -F _termhost termhost
`;
}

/** Text inside a zsh _arguments spec: brackets and colons are syntax there. */
const zq = (s: string) => s.replace(/[[\]:\\]/g, (c) => `\\${c}`).replace(/'/g, `'\\''`);

function zshValue(kind: Kind): string {
  if (kind === 'file') return '_files';
  if (kind === 'dir') return '_files -/';
  if (kind === 'session') return '_termhost_sessions';
  if (kind === 'command') return '_command_names -e';
  if (Array.isArray(kind)) return `(${kind.join(' ')})`;
  return ' ';
}

function zshFlag(f: Flag): string {
  const value = f.kind === 'boolean' ? '' : `:${zq(f.value ?? 'value')}:${zshValue(f.choices ?? f.complete)}`;
  const repeat = f.kind === 'list' ? '*' : '';
  if (f.short) return `'${repeat}(-${f.short} --${f.name})'{-${f.short},--${f.name}}'[${zq(f.help)}]${value}'`;
  return `'${repeat}--${f.name}[${zq(f.help)}]${value}'`;
}

export function zshCompletion(commands: Command[]): string {
  const cases = commands.map((c) => {
    const specs = c.flags.map(zshFlag);
    (c.positionals ?? []).forEach((p, i) => specs.push(`'${i + 1}:${i === 0 && p === 'session' ? 'session' : 'argument'}:${zshValue(p)}'`));
    if (c.stopAfter !== undefined || c.args?.includes('...')) specs.push(`'*:argument:${zshValue(c.positionals?.at(-1) === 'command' ? 'command' : undefined)}'`);
    return `    ${c.name}) _arguments ${specs.join(' ')} ;;`;
  });
  return `#compdef termhost
# zsh completion for termhost: termhost completion zsh > "\${fpath[1]}/_termhost" (then compinit), or
# source <(termhost completion zsh) after compinit.
_termhost_sessions() {
  local -a ids
  ids=(\${(f)"$(termhost ls -q 2>/dev/null)"})
  compadd -a ids
}
_termhost() {
  local curcontext="$curcontext" state line
  local -a commands
  commands=(
${commands.map((c) => `    '${zq(c.name)}:${zq(c.summary)}'`).join('\n')}
    'help:show help for a command'
  )
  _arguments -C ${GLOBAL_FLAGS.map(zshFlag).join(' ')} '(-V --version)'{-V,--version}'[print the version]' '1:command:->command' '*::arg:->args'
  case $state in
    command) _describe -t commands 'termhost command' commands ;;
    args)
      case $line[1] in
        help) _describe -t commands 'termhost command' commands ;;
${cases.map((l) => `    ${l}`).join('\n')}
      esac ;;
  esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _termhost "$@"; else compdef _termhost termhost; fi
`;
}
