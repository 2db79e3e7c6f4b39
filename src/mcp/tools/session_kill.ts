import { z } from 'zod';
import { defineTool, forgetReads, sessionId } from '../tool.js';

export default defineTool('session_kill', {
  title: 'Kill and remove a session',
  description:
    'End a session: signal its process group (default HUP; SIGKILL follows after 3 s), then free it. Its screen is ' +
    'gone afterwards; read what you need first.',
  input: { session: sessionId, signal: z.enum(['HUP', 'TERM', 'KILL', 'INT', 'QUIT', 'USR1', 'USR2']).optional() },
  destructive: true,
  async run({ session, signal }, ctx) {
    const { backend } = ctx;
    await backend.kill(session, signal);
    forgetReads(ctx, session);
    return { text: `session ${session} killed and removed`, structured: { session, killed: true } };
  },
});
