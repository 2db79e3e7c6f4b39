/**
 * A pane's moderation bar: for a moderated session (or one whose agent input a moderator paused), who must be
 * present, who is, whether agents may type, when an unattended session ends, and a person's Pause / Resume. The
 * state comes from the server only (the attach `state` frame, `moderation_changed` events, GET .../moderation); the
 * words of each change arrive separately as the socket's notices.
 */
import { api, enc } from './api.js';
import { fill, h } from './dom.js';
import type { Me, ModerationState } from './types.js';

export class ModerationBar {
  readonly root = h('div', { class: 'moderation-bar', hidden: true, role: 'status', 'aria-label': 'moderation' });
  private state: ModerationState | undefined;
  private busy = false;

  constructor(
    private readonly sessionId: string,
    private readonly me: Me | undefined,
    private readonly onError: (message: string) => void,
  ) {}

  private get isPerson(): boolean {
    const k = this.me?.actor.kind;
    return k === 'human' || k === 'admin';
  }

  update(m: ModerationState | undefined): void {
    this.state = m;
    this.render();
  }

  async refresh(): Promise<void> {
    try {
      this.update(await api<ModerationState>('GET', `/v1/sessions/${enc(this.sessionId)}/moderation`));
    } catch {
      /* the session is gone or unreachable; the pane's state says so */
    }
  }

  private async act(action: 'pause' | 'resume'): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      this.update(await api<ModerationState>('POST', `/v1/sessions/${enc(this.sessionId)}/moderation`, { action }));
    } catch (err) {
      this.onError((err as Error).message);
    } finally {
      this.busy = false;
      this.render();
    }
  }

  private render(): void {
    const m = this.state;
    const shown = m !== undefined && (m.required || m.paused_by !== null);
    this.root.hidden = !shown;
    if (!m || !shown) return fill(this.root);
    this.root.dataset.agentInput = m.agent_input;
    this.root.dataset.presence = m.presence;
    const present = m.present.length > 0 ? `Present: ${[...new Set(m.present.map((a) => a.name))].join(', ')}.` : '';
    const absent = m.presence === 'waiting' ? 'Nobody has attached as driver yet.' : 'The last person attached as driver left.';
    const ends = m.ends_at ? ` The session ends at ${new Date(m.ends_at).toLocaleTimeString()} unless a person attaches as driver.` : '';
    const button = m.paused_by
      ? h('button', { class: 'btn btn-small btn-resume', disabled: this.busy, onclick: () => void this.act('resume') }, 'Resume agents')
      : h('button', { class: 'btn btn-small btn-pause', disabled: this.busy, onclick: () => void this.act('pause') }, 'Pause agents');
    fill(
      this.root,
      h(
        'div',
        { class: 'moderation-text' },
        h('div', { class: 'moderation-title' }, m.required ? 'Moderated session' : 'Agent input paused', h('span', { class: `pill pill-${m.agent_input}` }, `agent input ${m.agent_input}`)),
        m.required && h('div', { class: 'moderation-required' }, `Requires ${m.required_person}.`),
        m.required && h('div', { class: 'moderation-presence' }, m.present.length > 0 ? present : `${absent}${ends}`),
        m.paused_by && h('div', { class: 'moderation-paused' }, `Agent input paused by ${m.paused_by.name} (${m.paused_by.kind}).`),
      ),
      this.isPerson && button,
    );
  }
}
