import { z } from 'zod';
import { defineTool, sessionId } from '../tool.js';

export default defineTool('lease_acquire', {
  title: 'Take the keyboard',
  description:
    'Acquire an input lease when several agents share a session. exclusive: only you may type until it expires or ' +
    'you release it; shared: you and other shared holders may. Pass the returned lease_id to send and mouse. A ' +
    'person typing ends an agent\'s lease (preemption). Fails with lease_held, naming the holder, if it conflicts.',
  input: {
    session: sessionId,
    mode: z.enum(['shared', 'exclusive']).optional().describe('Default exclusive.'),
    ttl_ms: z.number().int().min(100).max(600000).optional().describe('Default 60000.'),
    lease_id: z.string().min(1).max(64).optional().describe('Renew this lease of yours (new TTL, optionally a new mode) instead of taking another.'),
  },
  async run({ session, mode, ttl_ms, lease_id }, { backend }) {
    const lease = await backend.acquireLease(session, mode ?? 'exclusive', ttl_ms ?? 60_000, lease_id);
    return { text: `lease ${lease.lease_id} (${lease.mode}) on session ${session} until ${lease.expires_at}`, structured: lease as unknown as Record<string, unknown> };
  },
});
