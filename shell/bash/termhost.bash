# termhost shell integration for bash, loaded with `bash --rcfile THIS -i`.
#
# The user's own files load first, exactly as bash would have loaded them, with their PS1 and PROMPT_COMMAND intact.
# Then the shell reports its prompts and commands to termhost with FinalTerm marks (OSC 133): A prompt start,
# B prompt end (input starts), C output starts, D;<status> the command ended, and the working directory (OSC 7).
# Every mark carries the session's nonce, read once from the environment and unset, so no program started from this
# shell inherits it and a program that prints a mark is not believed.

# The nonce leaves the environment before the user's files run: a program they start (an agent, a prompt tool's
# daemon) would otherwise inherit it.
if [ -n "${TERMHOST_SHELL_NONCE-}" ]; then
  __termhost_pending_nonce=$TERMHOST_SHELL_NONCE
  unset TERMHOST_SHELL_NONCE
fi

if [ -n "${TERMHOST_SHELL_LOGIN-}" ]; then
  # A login shell: what bash reads with --login, which --rcfile would otherwise skip.
  unset TERMHOST_SHELL_LOGIN
  if [ -r /etc/profile ]; then . /etc/profile; fi
  for __termhost_f in ~/.bash_profile ~/.bash_login ~/.profile; do
    if [ -r "$__termhost_f" ]; then . "$__termhost_f"; break; fi
  done
  unset __termhost_f
elif [ -r ~/.bashrc ]; then
  # /etc/bash.bashrc has already run: bash reads it before the rcfile.
  . ~/.bashrc
fi

if [ -n "${__termhost_pending_nonce-}" ] && [ -z "${__termhost_nonce-}" ]; then
  __termhost_nonce=$__termhost_pending_nonce
  unset __termhost_pending_nonce

  # Commands termhost types start with a space; they stay out of the history.
  case ":${HISTCONTROL-}:" in
    *:ignorespace:* | *:ignoreboth:*) ;;
    *) HISTCONTROL="${HISTCONTROL:+$HISTCONTROL:}ignorespace" ;;
  esac

  __termhost_a=$'\e]133;A;th='"$__termhost_nonce"$'\a'
  __termhost_b=$'\e]133;B;th='"$__termhost_nonce"$'\a'
  __termhost_c=$'\e]133;C;th='"$__termhost_nonce"$'\a'

  # The user's prompt commands, run after termhost's D mark with $? as the command left it (bash 5.1 allows an array).
  __termhost_user_pc=("${PROMPT_COMMAND[@]}")
  unset PROMPT_COMMAND

  __termhost_status() { return "$1"; }

  # The D mark and the working directory go out in one write, which the terminal keeps whole: termhost believes an
  # OSC 7 only right after a trusted D, and no other program can slip one in between.
  __termhost_precmd() {
    local s=$? __termhost_pc p=${PWD//%/%25}
    p=${p//$'\a'/%07}
    p=${p//$'\e'/%1B}
    p=${p//$'\n'/%0A}
    printf '\e]133;D;%s;th=%s\a\e]7;file://%s%s\a' "$s" "$__termhost_nonce" "${HOSTNAME-}" "$p"
    for __termhost_pc in "${__termhost_user_pc[@]}"; do
      __termhost_status "$s"
      eval "$__termhost_pc"
    done
    # Wrapped on every prompt: a prompt command may have built PS1 afresh.
    case $PS1 in
      *"$__termhost_a"*) ;;
      *) PS1="\\[$__termhost_a\\]$PS1\\[$__termhost_b\\]" ;;
    esac
    case ${PS0-} in
      *"$__termhost_c"*) ;;
      *) PS0="${PS0-}$__termhost_c" ;;
    esac
    __termhost_status "$s"
  }
  PROMPT_COMMAND=__termhost_precmd
fi
