/** termhost wait: block until text, a regex, quiet output, a stable screen or exit; exit status 0 when matched, 1 on timeout. */
import { Bounds } from '../../protocol/bounds.js';
import { needArg, noMoreArgs, UsageError } from '../args.js';
import { printJson, withClient } from '../context.js';
import type { Command } from './types.js';

const ms = { kind: 'int', value: 'MS', min: 1, max: Bounds.waitMsMax } as const;

export const wait: Command = {
  name: 'wait',
  summary: 'wait for text, a regex, quiet output, a stable screen, the prompt, a program waiting for input, or exit; status 0 when matched, 1 on timeout',
  args: 'ID',
  details: ['Give at least one condition; the first that holds ends the wait.'],
  positionals: ['session'],
  flags: [
    { name: 'text', kind: 'string', value: 'T', help: 'the screen contains this text', field: '/text' },
    { name: 'regex', kind: 'string', value: 'R', help: 'a JavaScript regex matches the screen (lines joined by \\n, multiline)', field: '/regex' },
    { name: 'quiet', ...ms, help: 'no output for this long', field: '/quiet_ms' },
    { name: 'stable', ...ms, help: 'the screen text stayed the same this long (a spinner redrawing the same text counts)', field: '/stable_ms' },
    { name: 'exit', kind: 'boolean', help: 'the program exited' },
    { name: 'after-input', kind: 'boolean', help: 'text and regex look only below the line the last input was typed on (not at its echo)', field: '/after_input' },
    { name: 'prompt', kind: 'boolean', help: 'the shell is back at its prompt, nothing typed (bash, zsh, fish)' },
    { name: 'input-needed', kind: 'boolean', help: 'the program waits on the terminal for input' },
    { name: 'timeout', ...ms, min: 0, help: 'give up after this long', default: '10000', field: '/timeout_ms' },
    { name: 'json', kind: 'boolean', help: 'print the WaitResult (matched, reason, screen) as JSON' },
  ],
  examples: [
    "termhost wait 3f9c2a1b --regex '[$#]$' --after-input --timeout 5000",
    "termhost send 3f9c2a1b 'echo done' Enter && termhost wait 3f9c2a1b --text done --after-input",
    'termhost wait 3f9c2a1b --text done --json | jq .screen.lines',
    'termhost wait 3f9c2a1b --exit && echo finished',
  ],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    noMoreArgs(parsed, 1);
    const f = parsed.flags;
    if (f.text === undefined && f.regex === undefined && f.quiet === undefined && f.stable === undefined && !f.exit && !f.prompt && !f['input-needed']) {
      throw new UsageError('wait needs at least one of --text, --regex, --quiet, --stable, --exit, --prompt, --input-needed');
    }
    return withClient(parsed, async (client) => {
      const r = await client.wait(id, {
        text: f.text as string | undefined,
        regex: f.regex as string | undefined,
        quiet_ms: f.quiet as number | undefined,
        stable_ms: f.stable as number | undefined,
        exit: f.exit === true ? true : undefined,
        after_input: f['after-input'] === true ? true : undefined,
        prompt: f.prompt === true ? true : undefined,
        input_needed: f['input-needed'] === true ? true : undefined,
        timeout_ms: (f.timeout as number | undefined) ?? 10_000,
      });
      if (f.json) printJson(io, r);
      else {
        const exitNote = r.screen.exited ? ` (exit ${r.screen.exit_signal ?? r.screen.exit_code})` : '';
        io.out(`${r.matched ? 'matched' : 'not matched'}: ${r.reason}${exitNote}\n`);
      }
      return r.matched ? 0 : 1;
    });
  },
};
