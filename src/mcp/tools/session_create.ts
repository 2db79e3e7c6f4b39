import { z } from 'zod';
import { formatSession } from '../format.js';
import { defineTool } from '../tool.js';

export default defineTool('session_create', {
  title: 'Start a program in a new terminal',
  description:
    'Start a program in a new PTY session and return its id. `command` is an argv array (default: the shell), for ' +
    'example ["bash"], ["python3"] or ["vim", "notes.txt"]. Then use `send` to type, `wait_for` to wait for output, ' +
    'and `read_screen` to look.',
  input: {
    command: z.array(z.string().min(1)).min(1).max(256).optional().describe('argv; default $SHELL'),
    cwd: z.string().min(1).max(4096).optional(),
    env: z.record(z.string(), z.string()).optional().describe('Merged over the server environment.'),
    cols: z.number().int().min(1).max(1000).optional().describe('Default 80.'),
    rows: z.number().int().min(1).max(1000).optional().describe('Default 24.'),
    labels: z.record(z.string(), z.string()).optional(),
  },
  async run(args, { backend }) {
    const info = await backend.create(args);
    return { text: `started ${formatSession(info)}`, structured: info as unknown as Record<string, unknown> };
  },
});
