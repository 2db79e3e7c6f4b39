import { z } from 'zod';
import { defineTool, sessionId } from '../tool.js';

export default defineTool('lease_release', {
  title: 'Give the keyboard back',
  description: 'Release an input lease you acquired, so others may type.',
  input: { session: sessionId, lease_id: z.string().min(1).max(64) },
  async run({ session, lease_id }, { backend }) {
    await backend.releaseLease(session, lease_id);
    return { text: `lease ${lease_id} released`, structured: { session, lease_id, released: true } };
  },
});
