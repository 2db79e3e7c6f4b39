# termhost shell integration for zsh, sourced by termhost's .zshenv in interactive shells.
#
# The shell reports its prompts and commands with FinalTerm marks (OSC 133): A prompt start, B prompt end (input
# starts), C output starts, D;<status> the command ended, and the working directory (OSC 7). Every mark carries the
# session's nonce, which .zshenv took from the environment and unset before the user's files ran, so no program
# started from this shell inherits it and a program that prints a mark is not believed.
typeset -g __termhost_nonce=$__termhost_pending_nonce
# Commands termhost types start with a space; they stay out of the history.
setopt HIST_IGNORE_SPACE

# The D mark and the working directory go out in one write, which the terminal keeps whole: termhost believes an
# OSC 7 only right after a trusted D, and no other program can slip one in between.
__termhost_precmd() {
  local s=$?
  local p=${PWD//\%/%25}
  p=${p//$'\a'/%07}
  p=${p//$'\e'/%1B}
  p=${p//$'\n'/%0A}
  builtin printf '\e]133;D;%s;th=%s\a\e]7;file://%s%s\a' $s $__termhost_nonce ${HOST-} $p
  return $s
}

# Last among the precmd hooks: a theme may have built PROMPT afresh in its own hook.
__termhost_wrap_prompt() {
  local s=$?
  if [[ $PS1 != *$'\e]133;A;'* ]]; then
    PS1=$'%{\e]133;A;th='$__termhost_nonce$'\a%}'$PS1$'%{\e]133;B;th='$__termhost_nonce$'\a%}'
  fi
  return $s
}

__termhost_preexec() {
  builtin printf '\e]133;C;th=%s\a' $__termhost_nonce
}

# The user's .zshrc has not run yet: install at the first prompt, with the D mark first among the precmd hooks (zsh
# gives every hook the command's status) and the prompt wrapping last.
__termhost_setup() {
  local s=$?
  # zsh runs a function named precmd before the hooks; as a hook after ours, its output is not taken for the
  # command's.
  if (( ${+functions[precmd]} )); then
    functions[__termhost_user_precmd]=$functions[precmd]
    unfunction precmd
    precmd_functions=(__termhost_user_precmd ${precmd_functions:#__termhost_user_precmd})
  fi
  precmd_functions=(__termhost_precmd ${precmd_functions:#(__termhost_setup|__termhost_precmd|__termhost_wrap_prompt)} __termhost_wrap_prompt)
  preexec_functions=(${preexec_functions:#__termhost_preexec} __termhost_preexec)
  __termhost_precmd
  __termhost_wrap_prompt
  return $s
}
typeset -ga precmd_functions
precmd_functions+=(__termhost_setup)
