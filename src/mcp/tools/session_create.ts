import { z } from 'zod';
import { Bounds, NAME_PATTERN } from '../../protocol/bounds.js';
import { formatSession } from '../format.js';
import { defineTool } from '../tool.js';

export default defineTool('session_create', {
  title: 'Start a program in a new terminal',
  description:
    'Start a program in a new PTY session and return its id. `command` is an argv array (default: the shell), for ' +
    'example ["bash"], ["python3"] or ["vim", "notes.txt"]. Then use `send` to type, `wait_for` to wait for output, ' +
    'and `read_screen` to look. A daemon that starts only its command profiles (and a token limited to some) takes ' +
    '`profile` instead of command, cwd and env: the refusal names the profiles on offer.',
  // The shapes an agent sees; the bounds themselves are checked once, in core (SessionManager.create).
  input: {
    command: z.array(z.string().min(1).max(Bounds.commandArgCharsMax)).min(1).max(Bounds.commandArgsMax).optional().describe('argv; default $SHELL'),
    cwd: z.string().min(1).max(Bounds.cwdCharsMax).optional(),
    env: z.record(z.string(), z.string()).optional().describe(`Merged over the server environment; at most ${Bounds.envVarsMax} variables.`),
    cols: z.number().int().min(Bounds.dimensionMin).max(Bounds.dimensionMax).optional().describe('Default 80.'),
    rows: z.number().int().min(Bounds.dimensionMin).max(Bounds.dimensionMax).optional().describe('Default 24.'),
    labels: z.record(z.string(), z.string()).optional().describe(`At most ${Bounds.labelsMax}; keys are letters, digits and . _ / -.`),
    name: z.string().regex(new RegExp(NAME_PATTERN)).optional().describe('A name to address the session by instead of its id.'),
    profile: z.string().regex(new RegExp(NAME_PATTERN)).optional().describe("One of the daemon's command profiles, instead of command, cwd and env."),
    require_moderator: z
      .boolean()
      .optional()
      .describe('You may type only while a person is attached as driver (they run `termhost attach -write ID`); unattended, the session ends after the grace period.'),
  },
  async run(args, { backend }) {
    const info = await backend.create(args);
    return { text: `started ${formatSession(info)}`, structured: info as unknown as Record<string, unknown> };
  },
});
