import { z } from 'zod';
import { Bounds } from '../../protocol/bounds.js';
import { defineTool, leaseId, sessionId } from '../tool.js';

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
    'bytes as given. Example: [{"text":"make test"},{"key":"Enter"}]. Then call wait_for, not sleep; give it ' +
    'after_seq (the seq this answers) so the echo of what you typed cannot match.',
  input: { session: sessionId, input: z.array(item).min(1).max(Bounds.inputItemsMax), lease_id: leaseId },
  async run({ session, input, lease_id }, { backend }) {
    const { written, seq } = await backend.send(session, input, lease_id);
    return { text: `sent ${written} item${written === 1 ? '' : 's'} at seq ${seq}`, structured: { written, seq } };
  },
});
