import { z } from 'zod';
import { Bounds } from '../../protocol/bounds.js';
import { formatCommand } from '../format.js';
import { defineTool, leaseId } from '../tool.js';
import { SESSION_REF_PATTERN } from '../../protocol/bounds.js';

/** Below the request timeouts MCP clients commonly use, so a long command answers "running" instead of failing. */
export const RUN_DEFAULT_TIMEOUT_MS = 30_000;

export default defineTool('run', {
  title: 'Run a shell command',
  description:
    'Run one command in a shell (bash, zsh or fish) and get its exit status and its own output in one call: no ' +
    'prompt regex, no `echo $?`. Without `session`, a new shell session is started (its id is in the answer; pass ' +
    'it next time). Answers `exit 0 in 1.2 s` and the output (head and tail within max_output_bytes), or ' +
    '`input needed: "Continue? [Y/n]"` the moment the command waits for input (answer with send, then call ' +
    'await_command), or `still running` at timeout_ms (default 30000; the command keeps running: call ' +
    'await_command). Several lines run as one command. Interrupt with send {"key":"C-c"}.',
  input: {
    command: z.string().min(1).max(Bounds.commandCharsMax).describe('The command line, as you would type it.'),
    session: z.string().regex(new RegExp(SESSION_REF_PATTERN)).optional().describe('A shell session id or name; default: start a new shell.'),
    timeout_ms: z.number().int().min(0).max(Bounds.commandTimeoutMsMax).optional(),
    max_output_bytes: z.number().int().min(0).max(Bounds.commandOutputBytesMax).optional().describe('Default 16384.'),
    cwd: z.string().min(1).max(Bounds.cwdCharsMax).optional().describe('For a new session: where the shell starts.'),
    lease_id: leaseId,
  },
  async run({ command, session, timeout_ms, max_output_bytes, cwd, lease_id }, { backend }) {
    const id = session ?? (await backend.create(cwd ? { cwd } : {})).id;
    const r = await backend.run(id, command, { timeoutMs: timeout_ms ?? RUN_DEFAULT_TIMEOUT_MS, maxOutputBytes: max_output_bytes, leaseId: lease_id });
    return { text: formatCommand(id, r), structured: { session: id, ...r } };
  },
});
