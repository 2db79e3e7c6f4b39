import { z } from 'zod';
import { formatWait } from '../format.js';
import { lastReadOf, rememberRead } from '../tool.js';
import { Bounds } from '../../protocol/bounds.js';
import { defineTool, sessionId } from '../tool.js';

export default defineTool('wait_for', {
  title: 'Wait for the terminal',
  description:
    'Wait until a condition holds instead of sleeping, then get the screen. Give one or more (first wins): text ' +
    '(screen contains it), regex (JavaScript, multiline, over the rows joined by newlines; rows are right-trimmed, ' +
    'so a "$ " or "# " prompt is matched by "[$#]$"), quiet_ms (no output bytes for that long), stable_ms (screen text unchanged that long, even if a ' +
    'spinner keeps redrawing: best for "is it done?"), exit (the process ended; the exit code is reported), prompt ' +
    '(the shell is back at its prompt, nothing typed: bash, zsh, fish), input_needed (the program waits on the ' +
    'terminal for input: the kernel says so, and the answer names the kind and the prompt line). ' +
    'timeout_ms bounds the wait (default 10000, max 60000); a timeout is not an error, the result says matched=false. ' +
    'After your first read of a session the answer lists only the rows that changed since (rows not listed are as you read them); ' +
    'a whole screen (full=true, your first read, or when it is as short) opens with its size, as 100x30, and accounts for every row.',
  input: {
    session: sessionId,
    text: z.string().min(1).optional(),
    regex: z.string().min(1).max(Bounds.regexCharsMax).optional(),
    quiet_ms: z.number().int().min(1).max(Bounds.waitMsMax).optional(),
    stable_ms: z.number().int().min(1).max(Bounds.waitMsMax).optional(),
    exit: z.boolean().optional(),
    after_seq: z.number().int().min(0).optional().describe('Text and regex look only below the line where the input that answered this seq was typed.'),
    after_input: z.boolean().optional().describe('The same, for the last input anyone sent: skips the echo of a command you just typed.'),
    prompt: z.boolean().optional().describe('The shell is at its prompt with nothing typed (shell integration).'),
    input_needed: z.boolean().optional().describe('The foreground program waits on the terminal for input.'),
    timeout_ms: z.number().int().min(0).max(Bounds.waitMsMax).optional(),
    full: z.boolean().optional().describe('Return the whole screen; by default only the rows that changed since your last read of this session.'),
  },
  readOnly: true,
  async run({ session, timeout_ms, full, ...cond }, ctx) {
    const r = await ctx.backend.wait(session, { ...cond, timeout_ms: timeout_ms ?? 10_000 });
    const text = formatWait(session, r, lastReadOf(ctx, session, r.screen), full === true);
    rememberRead(ctx, session, r.screen);
    return { text, structured: r as unknown as Record<string, unknown> };
  },
});
