/** termhost mouse ID TYPE X,Y */
import { MOUSE_BUTTONS, MOUSE_MODIFIERS, MOUSE_TYPES } from '../../protocol/bounds.js';
import type { MouseRequest } from '../../protocol/http.js';
import { needArg, noMoreArgs, UsageError } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

export const mouse: Command = {
  name: 'mouse',
  summary: 'send a mouse event at 0-based cell X,Y (the program must have turned mouse tracking on)',
  args: 'ID TYPE X,Y',
  details: [`TYPE is one of ${MOUSE_TYPES.join(', ')}.`],
  positionals: ['session', MOUSE_TYPES],
  fields: { '/x': 'X in X,Y', '/y': 'Y in X,Y', '/type': 'TYPE' },
  flags: [
    { name: 'button', kind: 'string', value: 'B', help: 'which button', default: 'left', choices: MOUSE_BUTTONS, field: '/button' },
    { name: 'mod', kind: 'string', value: 'MODS', help: `modifiers held, comma-separated (${MOUSE_MODIFIERS.join(',')})`, field: '/modifiers' },
  ],
  examples: ['termhost mouse 3f9c2a1b click 10,3', 'termhost mouse 3f9c2a1b scroll 0,0 --button wheel-down --mod ctrl'],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    const type = needArg(parsed, 1, `a type (${MOUSE_TYPES.join('|')})`);
    const at = needArg(parsed, 2, 'a cell X,Y');
    noMoreArgs(parsed, 3);
    if (!(MOUSE_TYPES as readonly string[]).includes(type)) throw new UsageError(`the type is one of ${MOUSE_TYPES.join(', ')}, not "${type}"`);
    const m = /^(\d{1,7}),(\d{1,7})$/.exec(at);
    if (!m) throw new UsageError(`the cell is X,Y (0-based column and row), such as 10,3, not "${at}"`);
    const mods = parsed.flags.mod ? String(parsed.flags.mod).split(',').filter(Boolean) : undefined;
    const bad = mods?.find((x) => !(MOUSE_MODIFIERS as readonly string[]).includes(x));
    if (bad) throw new UsageError(`--mod takes ${MOUSE_MODIFIERS.join(', ')}, not "${bad}"`);
    const event = { type, x: Number(m[1]), y: Number(m[2]), button: parsed.flags.button, modifiers: mods } as MouseRequest;
    return withClient(parsed, async (client) => {
      await client.mouse(id, event);
      void io;
      return 0;
    });
  },
};
