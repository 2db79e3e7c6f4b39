# termhost shell integration for zsh: termhost starts zsh with ZDOTDIR pointing here, so this file runs first.
# It gives ZDOTDIR back at once, so zsh goes on to read the user's own .zshenv, .zprofile, .zshrc and .zlogin as it
# always would; the marks are set up at the first prompt, after all of them (see termhost.zsh).
if [[ -n ${TERMHOST_ZDOTDIR+set} ]]; then
  ZDOTDIR=$TERMHOST_ZDOTDIR
  unset TERMHOST_ZDOTDIR
else
  unset ZDOTDIR
fi
typeset -g __termhost_dir=${${(%):-%x}:A:h}
# The nonce leaves the environment before the user's .zshenv runs: a program it starts would otherwise inherit it.
typeset -g __termhost_pending_nonce=${TERMHOST_SHELL_NONCE-}
unset TERMHOST_SHELL_NONCE
if [[ -r ${ZDOTDIR:-$HOME}/.zshenv ]]; then
  source ${ZDOTDIR:-$HOME}/.zshenv
fi
if [[ -o interactive && -n $__termhost_pending_nonce ]]; then
  source $__termhost_dir/termhost.zsh
fi
unset __termhost_dir __termhost_pending_nonce
