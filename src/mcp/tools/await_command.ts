import { z } from 'zod';
import { Bounds } from '../../protocol/bounds.js';
import { formatCommand } from '../format.js';
import { defineTool, sessionId } from '../tool.js';
import { RUN_DEFAULT_TIMEOUT_MS } from './run.js';

export default defineTool('await_command', {
  title: 'Wait again on a command',
  description:
    'Wait for a command that `run` left running (or waiting for input, after you answered it with send) to end or ' +
    'to need input, and get its status and output, as `run` answers. timeout_ms defaults to 30000.',
  input: {
    session: sessionId,
    command_id: z.string().regex(/^c[0-9]{1,12}$/).describe('The command id `run` answered, such as "c3".'),
    timeout_ms: z.number().int().min(0).max(Bounds.commandTimeoutMsMax).optional(),
    max_output_bytes: z.number().int().min(0).max(Bounds.commandOutputBytesMax).optional().describe('Default 16384.'),
  },
  readOnly: true,
  async run({ session, command_id, timeout_ms, max_output_bytes }, { backend }) {
    const r = await backend.command(session, command_id, { waitMs: timeout_ms ?? RUN_DEFAULT_TIMEOUT_MS, maxOutputBytes: max_output_bytes });
    return { text: formatCommand(session, r), structured: { session, ...r } };
  },
});
