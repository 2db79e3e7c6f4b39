# termhost shell integration for fish, run with `fish --init-command 'source THIS'`: fish has read the user's
# config.fish and conf.d by then, so their prompt and functions are in place.
#
# The shell reports its prompts and commands with FinalTerm marks (OSC 133): A prompt start, B prompt end (input
# starts), C output starts, D;<status> the command ended, and the working directory (OSC 7). Every mark carries the
# session's nonce, read once from the environment and erased, so no program started from this shell inherits it and
# a program that prints a mark is not believed. fish keeps commands that start with a space out of its history.
if status is-interactive; and set -q TERMHOST_SHELL_NONCE; and not set -q __termhost_nonce
    set -g __termhost_nonce $TERMHOST_SHELL_NONCE
    set -e TERMHOST_SHELL_NONCE

    function __termhost_preexec --on-event fish_preexec
        printf '\e]133;C;th=%s\a' $__termhost_nonce
    end

    function __termhost_cwd
        string replace -a % %25 -- $PWD | string replace -a \a %07 | string replace -a \e %1B | string replace -a \n %0A
    end

    # The D mark and the working directory go out in one write, which the terminal keeps whole: termhost believes an
    # OSC 7 only right after a trusted D (or before the first prompt), and no other program can slip one in between.
    function __termhost_postexec --on-event fish_postexec
        set -l s $status
        printf '\e]133;D;%s;th=%s\a\e]7;file://%s%s\a' $s $__termhost_nonce (prompt_hostname) (__termhost_cwd)
    end
    # The directory it starts in, before the first prompt.
    printf '\e]7;file://%s%s\a' (prompt_hostname) (__termhost_cwd)

    # The user's prompt, wrapped: A before it, B after it, and its own $status as the command left it.
    functions -q fish_prompt
    functions -c fish_prompt __termhost_user_prompt
    function fish_prompt
        set -l s $status
        printf '\e]133;A;th=%s\a' $__termhost_nonce
        __termhost_set_status $s
        __termhost_user_prompt
        printf '\e]133;B;th=%s\a' $__termhost_nonce
    end
    function __termhost_set_status
        return $argv[1]
    end
end
