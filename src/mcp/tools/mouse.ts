import { z } from 'zod';
import { defineTool, leaseId, sessionId } from '../tool.js';

export default defineTool('mouse', {
  title: 'Click or scroll',
  description:
    'Send a mouse event at a cell (x = column, y = row, from 0). Only works when the app turned mouse reporting on ' +
    '(read_screen says "mouse on"); otherwise it fails with mouse_not_enabled and changes nothing. type: press, ' +
    'release, click (press + release), move, drag, scroll. button: left, middle, right, none; for scroll, ' +
    'wheel-up or wheel-down.',
  input: {
    session: sessionId,
    type: z.enum(['press', 'release', 'click', 'move', 'drag', 'scroll']),
    button: z.enum(['left', 'middle', 'right', 'wheel-up', 'wheel-down', 'none']).optional(),
    x: z.number().int().min(0).max(999),
    y: z.number().int().min(0).max(999),
    modifiers: z.array(z.enum(['shift', 'alt', 'ctrl'])).max(3).optional(),
    lease_id: leaseId,
  },
  async run({ session, lease_id, ...event }, { backend }) {
    const r = await backend.mouse(session, event as never, lease_id);
    return { text: `mouse ${event.type} at row ${event.y} col ${event.x} sent (${r.written} bytes)`, structured: r };
  },
});
