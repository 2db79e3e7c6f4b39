import { z } from 'zod';
import { Bounds } from '../../protocol/bounds.js';
import { formatWait } from '../format.js';
import { defineTool, lastReadOf, leaseId, noteTyped, rememberRead, sessionId } from '../tool.js';

const item = z.union([
  z.object({ text: z.string().max(1_000_000) }).strict(),
  z.object({ key: z.string().min(1).max(64) }).strict(),
  z.object({ paste: z.string().max(1_000_000) }).strict(),
  z.object({ raw: z.string().max(1_000_000) }).strict(),
]);

export default defineTool('send', {
  title: 'Type into a session',
  description:
    'Send a list of input items, written in order as one contiguous write. Items: {"text": "ls -la"} types literal ' +
    'text (no Enter); {"key": "Enter"} presses a key: Enter Tab Escape Backspace Up Down Left Right Home End PageUp ' +
    'PageDown Delete F1..F12, with modifiers as C- (Ctrl), M- (Alt), S- (Shift): "C-c" interrupts, "C-d" is EOF, ' +
    '"M-x", "C-Left"; {"paste": "..."} pastes (bracketed when the app asked for it); {"raw": "\\u001b[A"} sends ' +
    'bytes as given. Example: [{"text":"make test"},{"key":"Enter"}]. To wait for the answer in the same call, give ' +
    '`until` ({"text": "done"}, {"regex": "[$#]$"}, {"stable_ms": 500}); or call wait_for afterwards, never sleep.',
  input: {
    session: sessionId,
    input: z.array(item).min(1).max(Bounds.inputItemsMax),
    lease_id: leaseId,
    until: z
      .object({
        text: z.string().min(1).optional(),
        regex: z.string().min(1).max(Bounds.regexCharsMax).optional(),
        quiet_ms: z.number().int().min(1).max(Bounds.waitMsMax).optional(),
        stable_ms: z.number().int().min(1).max(Bounds.waitMsMax).optional(),
        exit: z.boolean().optional(),
        timeout_ms: z.number().int().min(0).max(Bounds.waitMsMax).optional(),
      })
      .strict()
      .optional()
      .describe(
        'Then wait, in the same call, as wait_for does (default timeout 10000 ms); text and regex look only at what comes below the line you typed on. ' +
          'The answer lists the rows that changed since your last read, under their row numbers (rows not listed are as you read them); ' +
          'a whole screen, when that is as short or you read none before, opens with its size (as 100x30) and accounts for every row; ' +
          `a row that echoes exactly a text item you typed since then shows ${JSON.stringify('<your input>')} in its place.`,
      ),
  },
  async run({ session, input, lease_id, until }, ctx) {
    const { written, seq } = await ctx.backend.send(session, input, lease_id);
    noteTyped(ctx, session, input.flatMap((i) => ('text' in i ? [i.text] : [])));
    if (!until) return { text: `sent ${written} item${written === 1 ? '' : 's'} at seq ${seq}`, structured: { written, seq } };
    const { timeout_ms, ...cond } = until;
    const after = cond.text !== undefined || cond.regex !== undefined ? { after_seq: seq } : {};
    const r = await ctx.backend.wait(session, { ...cond, ...after, timeout_ms: timeout_ms ?? 10_000 });
    const text = formatWait(session, r, lastReadOf(ctx, session, r.screen));
    rememberRead(ctx, session, r.screen);
    return { text, structured: { written, seq, ...(r as unknown as Record<string, unknown>) } };
  },
});
