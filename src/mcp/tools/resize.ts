import { z } from 'zod';
import { defineTool, sessionId } from '../tool.js';

export default defineTool('resize', {
  title: 'Resize the terminal',
  description: 'Set the terminal size in columns and rows (1..1000); the program gets SIGWINCH and usually redraws.',
  input: { session: sessionId, cols: z.number().int().min(1).max(1000), rows: z.number().int().min(1).max(1000) },
  async run({ session, cols, rows }, { backend }) {
    const info = await backend.resize(session, cols, rows);
    return { text: `session ${session} is now ${info.cols}x${info.rows}`, structured: info as unknown as Record<string, unknown> };
  },
});
