/**
 * The pieces of a session pane that only draw: status, title, role switch, controls, the info line, the overlay and
 * the footer, each from a snapshot of the pane (PaneModel) with the pane's actions as callbacks. SessionPane owns
 * the state and calls these whenever it changes.
 */
import { enc } from './api.js';
import { fill, h, icon } from './dom.js';
import { age, inputHolder, joinCommand } from './format.js';
import { statusOf, type PaneState } from './paneState.js';
import type { AnySession, Lease } from './types.js';

export type Role = 'driver' | 'viewer';

export interface PaneModel {
  id: string;
  state: PaneState;
  info: AnySession | undefined;
  role: Role;
  /** This browser signed in as a person (not read-only). */
  canDrive: boolean;
  leases: Lease[];
  gotOutput: boolean;
  secretActive: boolean;
  /** The size that would fill the pane (attached only), for "Fit to window". */
  paneFit: { cols: number; rows: number } | undefined;
}

export interface PaneActions {
  reconnect(): void;
  switchRole(role: Role): void;
  signal(sig: 'INT' | 'TERM' | 'KILL'): void;
  close(button: HTMLButtonElement): void;
  replay(): void;
  /** Save the stored transcript as an asciicast file. */
  download(): void;
  secretButton(): HTMLElement;
  /** Resize the session to the pane, once. */
  fitToWindow(): void;
}

const READ_ONLY_SIGN_IN = 'This browser signed in read-only';

export function renderStatus(el: HTMLElement, m: PaneModel, a: PaneActions): void {
  const s = statusOf(m.state);
  fill(
    el,
    h('span', { class: `dot tone-${s.tone}`, 'aria-hidden': 'true' }),
    h('span', { class: 'status-text' }, s.text),
    s.readOnly && h('span', { class: 'badge badge-readonly', title: 'You are watching: what you type goes nowhere' }, 'Read-only'),
    s.reconnect && h('button', { class: 'btn btn-small', onclick: () => a.reconnect() }, 'Reconnect'),
  );
  el.dataset.tone = s.tone;
}

export function renderTitle(el: HTMLElement, m: PaneModel): void {
  const info = m.info;
  fill(
    el,
    h('span', { class: 'sid' }, m.id),
    info && h('span', { class: 'cmd', title: joinCommand(info.command) }, joinCommand(info.command)),
    info?.live && info.title && h('span', { class: 'term-title' }, `“${info.title}”`),
  );
}

export function renderRole(el: HTMLElement, m: PaneModel, a: PaneActions): void {
  // A session that is gone has nobody to drive or watch.
  el.hidden = m.info?.live === false;
  const button = (role: Role, label: string) =>
    h(
      'button',
      {
        class: `seg${m.role === role ? ' seg-on' : ''}`,
        'aria-pressed': String(m.role === role),
        disabled: (role === 'driver' && !m.canDrive) || m.info?.live === false,
        title: role === 'driver' ? (m.canDrive ? 'Type into the session' : READ_ONLY_SIGN_IN) : 'Watch without typing',
        onclick: () => a.switchRole(role),
      },
      label,
    );
  fill(el, button('driver', 'Driver'), button('viewer', 'Viewer'));
}

export function renderControls(el: HTMLElement, m: PaneModel, a: PaneActions): void {
  const live = m.info?.live === true;
  el.hidden = m.info?.live === false;
  const running = live && m.state.kind === 'attached';
  const why = m.canDrive ? undefined : READ_ONLY_SIGN_IN;
  const sig = (s: 'INT' | 'TERM' | 'KILL', title: string) =>
    h('button', { class: 'btn', disabled: !running || !m.canDrive, title: why ?? title, onclick: () => a.signal(s) }, s);
  const closeBtn: HTMLButtonElement = h(
    'button',
    { class: 'btn btn-danger', disabled: !live || !m.canDrive, title: why ?? 'End the program and free the session', onclick: () => a.close(closeBtn) },
    'Close',
  );
  fill(el, sig('INT', 'Interrupt (Ctrl-C)'), sig('TERM', 'Ask the program to terminate'), sig('KILL', 'Kill the program at once'), closeBtn);
}

const item = (label: string, value: string, cls = '') => h('span', { class: `info-item ${cls}` }, h('span', { class: 'muted' }, `${label}: `), value);

export function renderInfo(el: HTMLElement, m: PaneModel, a: PaneActions): void {
  const info = m.info;
  if (info && !info.live) {
    const when = info.ended_at ? `${age(info.ended_at, Date.now())} ago` : 'when the daemon stopped';
    const stored = info.transcript === 'off' ? 'No transcript was stored.' : 'Replayed from the stored transcript (credentials the daemon recognises are redacted).';
    return fill(el, item('Ended', when), item('Size', `${info.cols}×${info.rows}`), h('span', { class: 'info-item muted' }, stored));
  }
  if (!info?.live) return fill(el);
  fill(
    el,
    item('Input', inputHolder(m.leases, Date.now()), 'input-holder'),
    item('Size', `${info.cols}×${info.rows}`, 'session-size'),
    fitNote(info, m.paneFit),
    m.role === 'driver' && m.canDrive && m.state.kind === 'attached' && fitButton(info, m.paneFit, a),
    item('Attached', `${info.clients.drivers} driving, ${info.clients.viewers} watching`),
    m.state.kind === 'attached' && !m.secretActive && a.secretButton(),
  );
}

const size = (s: { cols: number; rows: number }) => `${s.cols}×${s.rows}`;

/** How the session compares with the pane, for everyone: the session's size is not the pane's business. */
function fitNote(info: { cols: number; rows: number }, fit: PaneModel['paneFit']): HTMLElement | false {
  if (!fit || (fit.cols === info.cols && fit.rows === info.rows)) return false;
  const larger = info.cols > fit.cols || info.rows > fit.rows;
  const text = larger ? `larger than this pane (${size(fit)} fits): scroll to see all of it` : `this pane fits ${size(fit)}`;
  return h('span', { class: `info-item fit-note${larger ? ' fit-larger' : ''}` }, text);
}

/** Drivers only. It says what it will do, and does it only when pressed. */
function fitButton(info: { cols: number; rows: number }, fit: PaneModel['paneFit'], a: PaneActions): HTMLElement {
  const fills = fit !== undefined && fit.cols === info.cols && fit.rows === info.rows;
  const title = !fit
    ? 'Resize the session to fill this pane'
    : fills
      ? `The session already fills this pane (${size(fit)})`
      : `Resize the session from ${size(info)} to ${size(fit)}, the size of this pane. The program is told (SIGWINCH) and redraws; everyone attached sees the new size.`;
  return h('button', { class: 'btn btn-small btn-fit', disabled: fills, title, 'aria-description': title, 'data-fit-to': fit ? size(fit) : '', onclick: () => a.fitToWindow() }, 'Fit to window');
}

export function renderOverlay(el: HTMLElement, m: PaneModel, a: PaneActions): void {
  const st = m.state;
  const s = statusOf(st);
  let content: HTMLElement | undefined;
  if (st.kind === 'starting') content = h('div', { class: 'overlay-card' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), 'Connecting…');
  else if (st.kind === 'refused' || st.kind === 'cannot-connect') {
    content = h(
      'div',
      { class: `overlay-card overlay-${st.kind}` },
      h('div', { class: 'overlay-title' }, h('span', { class: `dot tone-${s.tone}` }), s.text),
      h('div', { class: 'overlay-detail' }, s.detail),
      s.reconnect && h('button', { class: 'btn', onclick: () => a.reconnect() }, 'Reconnect'),
    );
  } else if (st.kind === 'attached' && m.secretActive) {
    content = h('div', { class: 'overlay-card overlay-secret' }, icon('lock'), 'Output is hidden while secret input is on. Type into the pane, then press Done.');
  } else if (st.kind === 'attached' && !m.gotOutput) content = h('div', { class: 'overlay-card overlay-waiting' }, 'Waiting for output…');
  el.hidden = !content;
  // While a secret is typed the prompt stays in view: the notice sits at the bottom, and clicks go through.
  el.className = `overlay${st.kind === 'attached' ? ' overlay-passive' : ''}${m.secretActive ? ' overlay-bottom' : ''}`;
  fill(el, content);
}

export function renderFoot(el: HTMLElement, m: PaneModel, a: PaneActions): void {
  if (m.state.kind !== 'ended') return fill(el);
  fill(
    el,
    h('button', { class: 'btn', onclick: () => a.replay() }, 'Replay transcript'),
    // Fetched by the page (a plain link would carry the cookie without the page key), then saved from memory.
    h(
      'a',
      {
        class: 'btn',
        href: `/v1/sessions/${enc(m.id)}/transcript?format=asciicast`,
        onclick: (e: MouseEvent) => {
          e.preventDefault();
          a.download();
        },
      },
      'Download .cast',
    ),
  );
}
