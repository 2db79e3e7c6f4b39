/**
 * termhost moderate: a moderator's view of a session and actions on it, for people at a terminal. Without an action
 * it shows who must be present and who is; pause / resume agent input, revoke an agent's lease, end the session.
 */
import type { ModerationAction, ModerationState } from '../../protocol/moderation.js';
import { needArg, noMoreArgs, UsageError } from '../args.js';
import { printJson, withClient } from '../context.js';
import type { Command } from './types.js';

const ACTIONS = ['pause', 'resume', 'revoke', 'end'] as const satisfies readonly ModerationAction[];

export function moderationText(id: string, m: ModerationState): string {
  const lines: string[] = [];
  lines.push(m.required ? `${id} requires ${m.required_person}` : `${id} does not require a person present`);
  if (m.present.length > 0) lines.push(`present: ${m.present.map((a) => `${a.name} (${a.kind})`).join(', ')}`);
  else if (m.required) lines.push(m.presence === 'waiting' ? 'nobody has attached as driver yet' : 'the last person attached as driver left');
  if (m.paused_by) lines.push(`agent input paused by ${m.paused_by.name}`);
  lines.push(`agent input: ${m.agent_input}`);
  if (m.ends_at) lines.push(`ends at ${m.ends_at} unless a person attaches (grace ${Math.round(m.grace_ms / 1000)} s)`);
  return lines.join('\n') + '\n';
}

export const moderate: Command = {
  name: 'moderate',
  summary: "show a session's moderation, or pause / resume agent input, revoke an agent's lease, end it (a person's token)",
  args: 'ID [pause|resume|revoke LEASE|end]',
  details: [
    'A moderated session (require_moderator) takes agent input only while a person is attached as driver:',
    '`termhost attach -write ID` with a human or admin token. Moderating needs such a token too, attached or not.',
    'LEASE is a lease id from `curl .../v1/sessions/ID/leases` or the lease_acquired event.',
  ],
  positionals: ['session', ACTIONS],
  flags: [{ name: 'json', kind: 'boolean', help: 'print the moderation state as JSON' }],
  examples: ['termhost moderate 3f9c2a1b', 'termhost moderate 3f9c2a1b pause', 'termhost moderate 3f9c2a1b revoke l_0123456789abcdef', 'termhost moderate 3f9c2a1b end'],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    const action = parsed.positional[1];
    if (action !== undefined && !(ACTIONS as readonly string[]).includes(action)) throw new UsageError(`the action is one of ${ACTIONS.join(' ')}, not "${action}"`);
    const lease = action === 'revoke' ? needArg(parsed, 2, 'the lease id to revoke') : undefined;
    noMoreArgs(parsed, action === undefined ? 1 : action === 'revoke' ? 3 : 2);
    return withClient(parsed, async (client) => {
      const state = action === undefined ? await client.moderation(id) : await client.moderate(id, action as ModerationAction, lease);
      if (parsed.flags.json) printJson(io, state);
      else io.out(moderationText(id, state));
      return 0;
    });
  },
};
