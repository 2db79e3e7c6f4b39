import { z } from 'zod';
import { defineTool, sessionId } from '../tool.js';

export default defineTool('read_scrollback', {
  title: 'Read lines above the screen',
  description: 'Read the last N lines that scrolled off the top of the screen (oldest first), for output longer than the screen.',
  input: { session: sessionId, lines: z.number().int().min(1).max(10000).optional().describe('Default 100.') },
  readOnly: true,
  async run({ session, lines }, { backend }) {
    const r = await backend.scrollback(session, lines ?? 100);
    const head = `session ${session} | ${r.lines.length} of ${r.total} scrollback lines`;
    return { text: r.lines.length ? `${head}\n${r.lines.join('\n')}` : head, structured: r };
  },
});
