/**
 * The words attached clients see when moderation changes ("moderator joined", "agent input paused by ..."): a pure
 * table, sent as the attach protocol's notice (an `error` frame without a code) and shown by the CLI and the UI.
 */
import type { ModerationChange, ModerationState } from '../../protocol/moderation.js';
import type { Actor } from './actor.js';

export function moderationNotice(change: ModerationChange, actor: Actor, detail: Record<string, string>, state: ModerationState): string {
  const who = `${actor.name} (${actor.kind})`;
  const until = state.ends_at ? `; the session ends at ${state.ends_at} unless a person attaches as driver` : '';
  switch (change) {
    case 'person_joined':
      return `moderator joined: ${who}${state.paused_by ? `; agent input stays paused by ${state.paused_by.name}` : '; agents may type'}`;
    case 'person_left':
      return state.present.length > 0
        ? `moderator left: ${who}; ${state.present.length} still attached`
        : `moderator left: ${who}; agent input is refused until a person attaches as driver${until}`;
    case 'paused':
      return `agent input paused by ${who}`;
    case 'resumed':
      return `agent input resumed by ${who}${state.agent_input === 'refused' ? ', but agents wait for a person to attach as driver' : ''}`;
    case 'lease_revoked':
      return `${who} revoked the input lease of agent ${detail.agent ?? 'unknown'}`;
    case 'ended':
      return `session ended by moderator ${who}`;
    case 'grace_expired':
      return `nobody attended within ${Math.round(state.grace_ms / 1000)} s; the session is ending`;
  }
}
