/**
 * termhost send: arguments that are key names are keys, the rest is text; `-` is standard input; -l makes every
 * argument text, --paste sends text as a paste (bracketed when the program asked for that).
 */
import type { InputItem } from '../../protocol/http.js';
import { needArg, UsageError } from '../args.js';
import { withClient, type Io } from '../context.js';
import type { Command } from './types.js';

/** Standard input read for `send ID -`, at most; the daemon takes request bodies up to 1 MiB. */
const MAX_STDIN_BYTES = 1024 * 1024 - 64 * 1024;

async function readStdin(io: Io): Promise<string> {
  const stdin = io.stdin;
  if (!stdin) throw new UsageError('"-" reads standard input, and there is none here');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stdin) {
    const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
    size += b.length;
    if (size > MAX_STDIN_BYTES) throw new UsageError(`standard input is larger than ${MAX_STDIN_BYTES >> 10} KiB; send it in parts`);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** How an argument is read: a key name, text, or a mistake worth a usage error. */
export interface KeyNames {
  isKeyName(name: string): boolean;
  /** The key name a mistyped one was probably meant to be. */
  suggestKey?(name: string): string | undefined;
}

/** Single characters are valid key names too, but as text they mean the same bytes; only names need telling apart. */
export function toInputItems(args: Array<string | { stdin: string }>, opts: { literal: boolean; paste: boolean }, keys: KeyNames): InputItem[] {
  const text = (t: string): InputItem => (opts.paste ? { paste: t } : { text: t });
  return args.map((a) => {
    if (typeof a !== 'string') return text(a.stdin);
    if (opts.literal) return text(a);
    if (keys.isKeyName(a) && [...a].length > 1) return { key: a };
    // "C-Enter" or "M-F13" was meant as a key; sending it as text would hide the mistake.
    if (/^([CMS]-)+./.test(a)) throw new UsageError(`"${a}" is not a key termhost can encode; use -l to send it as text`);
    const near = keys.suggestKey?.(a);
    if (near) throw new UsageError(`"${a}" is not a key name; did you mean ${near}? (use -l to send it as text)`);
    return text(a);
  });
}

export const send: Command = {
  name: 'send',
  summary: 'type text and keys into a session',
  args: 'ID ARG...',
  details: [
    'Each argument that is a key name (Enter, C-c, M-x, Up, F5, S-Tab...) is pressed as that key; the others are',
    'typed as text. "-" is replaced by standard input. Flags go before the id: everything after it is sent.',
  ],
  stopAfter: 1,
  positionals: ['session'],
  flags: [
    { name: 'literal', short: 'l', kind: 'boolean', help: 'send every argument as text, key names included' },
    { name: 'paste', kind: 'boolean', help: 'send text as a paste (wrapped in bracketed-paste marks when the program enabled them)' },
  ],
  examples: [
    "termhost send 3f9c2a1b 'echo hi' Enter",
    'termhost send 3f9c2a1b C-c',
    'termhost send -l 3f9c2a1b Enter          # types the word "Enter"',
    'git diff | termhost send --paste 3f9c2a1b -',
  ],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    const rest = parsed.positional.slice(1);
    if (rest.length === 0) throw new UsageError('send needs at least one argument after the id: text, a key name, or - for standard input');
    if (rest.filter((a) => a === '-').length > 1) throw new UsageError('"-" (standard input) can be given once');
    // Key names are the runtime's own table, a pure module loaded only here, where it is needed: that file alone,
    // not the runtime around it (node-pty, the emulator), which cost `send` about 100 ms a call.
    const keys = (await import('../../core/input/keys.js')) as KeyNames;
    const args = await Promise.all(rest.map(async (a) => (a === '-' ? { stdin: await readStdin(io) } : a)));
    const items = toInputItems(args, { literal: parsed.flags.literal === true, paste: parsed.flags.paste === true }, keys);
    return withClient(parsed, async (client) => {
      const r = await client.input(id, items);
      return r.written === items.length ? 0 : 1;
    });
  },
};
