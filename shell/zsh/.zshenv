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
if [[ -r ${ZDOTDIR:-$HOME}/.zshenv ]]; then
  source ${ZDOTDIR:-$HOME}/.zshenv
fi
if [[ -o interactive && -n ${TERMHOST_SHELL_NONCE-} ]]; then
  source $__termhost_dir/termhost.zsh
fi
unset __termhost_dir
