import { z } from 'zod';
import { TermError } from '../../core/errors.js';
import { formatChanges, formatScreen } from '../format.js';
import { agentPicture, describePicture, IMAGE_EDGE_MAX_PX } from '../picture.js';
import { defineTool, lastReadOf, readKey, rememberRead, sessionId } from '../tool.js';

export default defineTool('read_screen', {
  title: 'Read the screen',
  description:
    'Read what a person would see: numbered rows (">" marks the cursor row), cursor position, and notes when a ' +
    'full-screen app or mouse mode is on; a whole screen opens with its size (as 100x30). changes_only=true returns just the rows that changed since your last read ' +
    'of this session, with no size line (cheap for re-checks); wait_ms (with changes_only) waits that long for a change first. ' +
    'highlights=true also lists inverse-video runs, which is how most menus show the selected item. ' +
    `as="image" returns a PNG of the screen instead (colours, highlights and layout as a person sees them; long edge at most ${IMAGE_EDGE_MAX_PX} px): use it when colour or layout matters, text otherwise.`,
  input: {
    session: sessionId,
    changes_only: z.boolean().optional().describe('Only what changed since your last read (full screen if none).'),
    wait_ms: z.number().int().min(0).max(60000).optional().describe('With changes_only: wait up to this long for a change.'),
    highlights: z.boolean().optional(),
    as: z.enum(['text', 'image']).optional().describe('text (default): numbered rows; image: a PNG picture of the screen.'),
    scale: z.number().int().min(4).max(64).optional().describe('With as="image": pixels per cell row (default 16; shrunk to fit).'),
    theme: z.enum(['dark', 'light']).optional().describe('With as="image": colours (default dark).'),
  },
  readOnly: true,
  async run({ session, changes_only, wait_ms, highlights, as, scale, theme }, ctx) {
    if (as === 'image') {
      if (changes_only || wait_ms !== undefined || highlights) {
        throw new TermError('invalid_request', 'changes_only, wait_ms and highlights go with as="text"; a picture is always the whole screen');
      }
      const shot = await agentPicture(ctx.backend, session, { scale, theme });
      const { bytes, ...about } = shot;
      return { text: describePicture(session, shot), structured: { ...about, bytes: bytes.length }, images: [{ data: bytes, mimeType: 'image/png' }] };
    }
    if (scale !== undefined || theme !== undefined) {
      throw new TermError('invalid_request', 'scale and theme go with as="image"');
    }
    const since = ctx.lastSeq.get(session);
    if (changes_only && since !== undefined) {
      const c = await ctx.backend.changes(session, since, { highlights, waitMs: wait_ms });
      ctx.lastSeq.set(session, c.seq);
      // The rows now on screen: the ones that changed over the ones read before (a full answer has them all).
      const before = lastReadOf(ctx, session, c)?.lines;
      const lines = c.lines ?? (before && before.length === c.rows ? [...before] : undefined);
      if (lines && !c.lines) for (const ch of c.changes ?? []) lines[ch.row] = ch.text;
      if (lines) rememberRead(ctx, session, { seq: c.seq, lines, alt_screen: c.alt_screen });
      else ctx.lastLines.delete(readKey(session, c.alt_screen));
      return { text: formatChanges(session, c), structured: c as unknown as Record<string, unknown> };
    }
    const s = await ctx.backend.screen(session, { highlights });
    rememberRead(ctx, session, s);
    return { text: formatScreen(session, s), structured: s as unknown as Record<string, unknown> };
  },
});
