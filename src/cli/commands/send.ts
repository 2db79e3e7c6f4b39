/** termhost send: arguments that are key names are keys, the rest is text; -l makes everything literal text. */
import { isKeyName } from '../../core/index.js';
import type { InputItem } from '../../protocol/http.js';
import { parseArgs, UsageError } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

/** Single characters are valid key names too, but as text they mean the same bytes; only names need telling apart. */
export function toInputItems(args: string[], literal: boolean): InputItem[] {
  return args.map((a) => {
    if (literal) return { text: a };
    if (isKeyName(a) && [...a].length > 1) return { key: a };
    // "C-Enter" or "M-F13" was meant as a key; sending it as text would hide the mistake.
    if (/^([CMS]-)+./.test(a)) throw new UsageError(`"${a}" is not a key termhost can encode; use -l to send it as text`);
    return { text: a };
  });
}

export const send: Command = {
  name: 'send',
  usage: "send [-l] ID ARG...   e.g. send a1b2 'echo hi' Enter",
  summary: 'send text and keys',
  async run(argv, io) {
    const parsed = parseArgs(argv, { l: 'boolean' }, 1);
    const [id, ...rest] = parsed.positional;
    if (!id || rest.length === 0) throw new UsageError('send needs a session id and at least one argument');
    return withClient(parsed, async (client) => {
      const r = await client.input(id, toInputItems(rest, parsed.flags.l === true));
      void io;
      return r.written === rest.length ? 0 : 1;
    });
  },
};
