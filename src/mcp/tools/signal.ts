import { z } from 'zod';
import { defineTool, sessionId } from '../tool.js';

export default defineTool('signal', {
  title: 'Signal the program',
  description:
    "Send a signal to the terminal's foreground process group (the running command in a shell, as Ctrl-C reaches " +
    'it); the session stays. INT interrupts, TERM asks to exit, KILL forces it.',
  input: { session: sessionId, signal: z.enum(['HUP', 'TERM', 'KILL', 'INT', 'QUIT', 'USR1', 'USR2']) },
  async run({ session, signal }, { backend }) {
    const info = await backend.signal(session, signal);
    const to = info.signalled;
    const text = to ? `sent SIG${signal} to process group ${to.pgid}${to.command ? ` (${to.command})` : ''}` : `no process left to signal in ${session}`;
    return { text, structured: info as unknown as Record<string, unknown> };
  },
});
