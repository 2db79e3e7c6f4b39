import { z } from 'zod';
import { defineTool, sessionId } from '../tool.js';

export default defineTool('signal', {
  title: 'Signal the program',
  description:
    'Send a signal to the session\'s process group; the session stays. INT is what Ctrl-C does in a shell, but to ' +
    'interrupt the foreground program prefer send with {"key":"C-c"}. TERM asks to exit, KILL forces it.',
  input: { session: sessionId, signal: z.enum(['HUP', 'TERM', 'KILL', 'INT', 'QUIT', 'USR1', 'USR2']) },
  async run({ session, signal }, { backend }) {
    const info = await backend.signal(session, signal);
    return { text: `sent SIG${signal} to session ${session}`, structured: info as unknown as Record<string, unknown> };
  },
});
