/**
 * One session in the browser: attached live through the WebSocket protocol, or replayed from its transcript once it
 * is gone. Owns the pane's state machine (paneState.ts), the renderer, the socket, the controls, the secret-input
 * banner and the lease display.
 *
 * The session's size belongs to the API, as in tmux: opening a session, or resizing the browser, never resizes it.
 * The renderer draws the session at its own size (a smaller one with its edge in view, a larger one scrolling), and a
 * driver may press "Fit to window" to make the session the pane's size, once, on purpose.
 *
 * The page keeps no terminal state between loads: each connect starts from the server's repaint, so a reload, a
 * reconnect or a restarted daemon all land on the screen the server has.
 */
import { api, ApiError, download, enc } from './api.js';
import { AttachSocket, type SecretInput } from './attachSocket.js';
import { createDomView, type StyledScreen } from './domView.js';
import { h } from './dom.js';
import type { EventStream, RuntimeEvent } from './events.js';
import {
  renderControls,
  renderFoot,
  renderInfo,
  renderOverlay,
  renderRole,
  renderStatus,
  renderTitle,
  type PaneActions,
  type PaneModel,
  type Role,
} from './paneParts.js';
import { failureState, closedState, type PaneState } from './paneState.js';
import { SecretBanner } from './SecretBanner.js';
import { ModerationBar } from './ModerationBar.js';
import { AuditPanel } from './AuditPanel.js';
import type { TerminalView } from './terminalView.js';
import { replayTranscript } from './transcript.js';
import type { AnySession, AttachToken, Lease, Me, SessionInfo, SignalAnswer } from './types.js';

/** The pane's own size is looked at again (for what "Fit to window" would do) once it has held still this long. */
const PANE_MEASURE_DEBOUNCE_MS = 100;

export interface PaneContext {
  id: string;
  me: Me | undefined;
  events: EventStream;
  navigate(path: string, replace?: boolean): void;
}

type ViewFactory = (host: HTMLElement) => Promise<TerminalView>;

export class SessionPane {
  readonly root: HTMLElement;
  private state: PaneState = { kind: 'starting' };
  private view: TerminalView | undefined;
  private socket: AttachSocket | undefined;
  private info: AnySession | undefined;
  private role: Role;
  private leases: Lease[] = [];
  private gotOutput = false;
  /** Bumped by every connect and by dispose, so late answers to an abandoned attempt are ignored. */
  private generation = 0;
  private measureTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly cleanups: Array<() => void> = [];
  private readonly secret: SecretBanner;
  private readonly moderation: ModerationBar;
  private readonly audit: AuditPanel;

  // Elements that change.
  private readonly statusEl = h('div', { class: 'status' });
  private readonly titleEl = h('div', { class: 'pane-title' });
  private readonly roleEl = h('div', { class: 'segmented', role: 'group', 'aria-label': 'role' });
  private readonly controlsEl = h('div', { class: 'controls' });
  private readonly infoEl = h('div', { class: 'pane-info' });
  private readonly noticesEl = h('div', { class: 'notices', 'aria-live': 'polite' });
  private readonly termHost = h('div', { class: 'term-host' });
  private readonly overlayEl = h('div', { class: 'overlay' });
  private readonly termWrap = h('div', { class: 'term-wrap' }, this.termHost, this.overlayEl);
  private readonly footEl = h('div', { class: 'pane-foot' });

  constructor(
    private readonly ctx: PaneContext,
    initialRole: Role,
    private readonly makeView: ViewFactory,
  ) {
    this.role = this.canDrive ? initialRole : 'viewer';
    this.secret = new SecretBanner(ctx.id, ctx.me, (msg) => this.notice(msg, 'error'));
    this.moderation = new ModerationBar(ctx.id, ctx.me, (msg) => this.notice(msg, 'error'));
    this.audit = new AuditPanel(ctx.id, ctx.me);
    this.secret.onChange = () => {
      this.renderInfo();
      this.renderOverlay();
    };
    this.root = h(
      'section',
      { class: 'pane', 'data-pane-state': 'starting' },
      h(
        'header',
        { class: 'pane-bar' },
        h('a', { class: 'back', href: '/ui/', onclick: (e: MouseEvent) => this.follow(e, '/ui/') }, '← Sessions'),
        this.titleEl,
        this.statusEl,
        this.roleEl,
        this.controlsEl,
      ),
      this.infoEl,
      this.secret.root,
      this.moderation.root,
      this.noticesEl,
      this.termWrap,
      this.footEl,
      this.audit.root,
    );
    this.cleanups.push(ctx.events.on((e) => this.onEvent(e)));
    // A viewer's keystrokes go nowhere (the renderer does not even send them); say so rather than seem broken.
    let hinted = 0;
    this.termHost.addEventListener(
      'keydown',
      () => {
        if (this.role !== 'viewer' || this.state.kind !== 'attached' || Date.now() - hinted < 5000) return;
        hinted = Date.now();
        this.notice(this.canDrive ? 'You are watching read-only: switch to Driver to type.' : 'This browser signed in read-only: typing goes nowhere.', 'info');
      },
      true,
    );
    // The pane changing size changes only what "Fit to window" offers, never the session.
    const observer = new ResizeObserver(() => this.scheduleMeasure());
    observer.observe(this.termHost);
    this.cleanups.push(() => observer.disconnect());
    this.renderAll();
  }

  private get canDrive(): boolean {
    return this.ctx.me?.actor.kind !== 'viewer';
  }

  private follow(e: MouseEvent, path: string): void {
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    this.ctx.navigate(path);
  }

  /** The whole attach flow: look the session up, mint an attach token with the cookie, open the socket. */
  async connect(): Promise<void> {
    const gen = ++this.generation;
    this.socket?.close();
    this.socket = undefined;
    this.gotOutput = false;
    this.setState({ kind: 'starting' });
    try {
      const info = await api<AnySession>('GET', `/v1/sessions/${enc(this.ctx.id)}`);
      if (gen !== this.generation) return;
      this.info = info;
      this.moderation.update(info.live ? info.moderation : undefined);
      const view = await this.ensureView();
      if (gen !== this.generation) return;
      if (!info.live) return void (await this.showRecord(gen));
      void this.refreshLeases();
      void this.secret.refresh();
      const tok = await api<AttachToken>('POST', `/v1/sessions/${enc(this.ctx.id)}/attach-tokens`, { role: this.role });
      if (gen !== this.generation) return;
      view.resize(info.cols, info.rows);
      this.socket = this.openSocket(gen, tok);
    } catch (err) {
      if (gen !== this.generation) return;
      const e = err instanceof ApiError ? err : new ApiError(String(err), 0, 'internal', false);
      this.setState(failureState(e.status, e.message));
    }
  }

  private async ensureView(): Promise<TerminalView> {
    if (this.view) return this.view;
    const view = await this.makeView(this.termHost).catch((err: unknown) => {
      this.notice(`The terminal renderer (xterm.js) did not load (${(err as Error).message}); showing the server's rendering instead.`, 'warn');
      return createDomView(this.termHost, () => this.fetchStyled());
    });
    view.onInput((data) => {
      if (this.role !== 'driver' || this.state.kind !== 'attached') return;
      this.socket?.sendStdin(data);
      this.revealCursor();
    });
    this.view = view;
    return view;
  }

  private async fetchStyled(): Promise<StyledScreen | undefined> {
    try {
      return await api<StyledScreen>('GET', `/v1/sessions/${enc(this.ctx.id)}/screen?format=styled`);
    } catch {
      return undefined; // hidden by a secret-input window, or the session is gone; the pane's state says which
    }
  }

  private openSocket(gen: number, tok: AttachToken): AttachSocket {
    const live = () => gen === this.generation;
    return new AttachSocket(this.ctx.id, { token: tok.token, role: tok.role }, {
      hello: (f) => {
        if (!live()) return;
        this.role = f.role;
        this.view?.resize(f.session.cols, f.session.rows);
        this.view?.setInputEnabled(f.role === 'driver');
        if (f.seq > 0) this.gotOutput = true;
        this.setState({ kind: 'attached', role: f.role });
        if (f.role === 'driver') this.view?.focus();
      },
      repaint: (seq, data) => {
        if (!live()) return;
        this.view?.reset();
        this.view?.write(data);
        if (seq > 0) this.outputSeen();
      },
      stdout: (_seq, data) => {
        if (!live()) return;
        this.view?.write(data);
        if (data.length > 0) this.outputSeen();
      },
      resized: (cols, rows) => {
        if (!live()) return;
        this.view?.resize(cols, rows);
        if (this.info?.live) this.info = { ...this.info, cols, rows };
        this.renderInfo();
        this.renderFit();
      },
      state: (s: SecretInput, m) => {
        if (!live()) return;
        this.secret.update(s);
        if (m) this.moderation.update(m);
        this.renderOverlay();
      },
      notice: (message, code) => {
        if (!live()) return;
        if (code === 'read_only') this.notice('You are watching read-only: switch to Driver to type.', 'info');
        else this.notice(message, code ? 'error' : 'info');
      },
      exit: (f) => {
        if (!live()) return;
        this.view?.setInputEnabled(false);
        this.setState({ kind: 'ended', reason: f.reason, code: f.code, signal: f.signal });
      },
      closed: (code, reason, exited) => {
        if (!live() || exited) return;
        this.setState(closedState(code, reason));
      },
    });
  }

  /** A session that is gone: its record says how it ended, and the store has what it printed. */
  private async showRecord(gen: number): Promise<void> {
    const rec = this.info;
    if (!rec || rec.live) return;
    this.setState({ kind: 'ended', reason: rec.exit_reason ?? 'ended', code: rec.exit_code, signal: rec.exit_signal });
    await this.replay(gen);
  }

  private async replay(gen = this.generation): Promise<void> {
    const view = this.view;
    const info = this.info;
    if (!view || !info) return;
    view.setInputEnabled(false);
    view.reset();
    view.resize(info.cols, info.rows);
    try {
      const result = await replayTranscript(this.ctx.id, (text) => gen === this.generation && view.writeTranscript(text));
      if (gen !== this.generation) return;
      this.gotOutput = true;
      if (result.chunks === 0) this.notice(info.transcript === 'off' ? 'No transcript was stored for this session (transcripts were off).' : 'The transcript is empty.', 'info');
      else if (result.truncated) this.notice('The pane shows the start of a long transcript; download the .cast file for all of it.', 'info');
    } catch (err) {
      if (gen === this.generation) this.notice(`Could not replay the transcript: ${(err as Error).message}`, 'error');
    }
    this.renderOverlay();
  }

  private outputSeen(): void {
    if (this.gotOutput) return;
    this.gotOutput = true;
    this.renderOverlay();
  }

  private setState(state: PaneState): void {
    this.state = state;
    if (state.kind !== 'attached') this.view?.setInputEnabled(false);
    this.renderAll();
  }

  private scheduleMeasure(): void {
    clearTimeout(this.measureTimer);
    this.measureTimer = setTimeout(() => {
      this.renderInfo();
      this.renderFit();
    }, PANE_MEASURE_DEBOUNCE_MS);
  }

  /** The size that would fill the pane, when a driver could ask for it. */
  private paneFit(): { cols: number; rows: number } | undefined {
    return this.view?.fitSize();
  }

  /** "Fit to window": one resize, because a person asked. The server's `resized` frame then resizes the view. */
  private fitToWindow(): void {
    if (this.role !== 'driver' || this.state.kind !== 'attached' || !this.view || !this.socket) return;
    const size = this.view.fitSize();
    if (!size) return this.notice('The pane cannot be measured yet; try again in a moment.', 'warn');
    if (size.cols === this.view.cols && size.rows === this.view.rows) return this.notice(`The session already fills this pane (${size.cols}×${size.rows}).`, 'info');
    this.socket.sendResize(size.cols, size.rows);
    this.view.focus();
  }

  /** Whether the session is drawn smaller or larger than the pane: the CSS and the tests read it. */
  private renderFit(): void {
    const view = this.view;
    const host = this.termHost;
    const screen = host.firstElementChild as HTMLElement | null;
    if (!view || !screen) return void delete this.termWrap.dataset.fit;
    const larger = screen.offsetWidth > host.clientWidth || screen.offsetHeight > host.clientHeight;
    const fit = this.paneFit();
    this.termWrap.dataset.fit = larger ? 'larger' : fit && fit.cols === view.cols && fit.rows === view.rows ? 'fills' : 'smaller';
  }

  /**
   * A session larger than the pane scrolls; typing brings the cursor into view, as a terminal's "scroll on
   * keystroke" does, so the line being typed is never off screen.
   */
  private revealCursor(): void {
    const r = this.view?.cursorRect();
    if (!r) return;
    const host = this.termHost.getBoundingClientRect();
    const margin = 2 * r.width;
    if (r.right + margin > host.right) this.termHost.scrollLeft += r.right + margin - host.right;
    else if (r.left - margin < host.left) this.termHost.scrollLeft -= host.left - (r.left - margin);
    if (r.bottom > host.bottom) this.termHost.scrollTop += r.bottom - host.bottom + r.height;
    else if (r.top < host.top) this.termHost.scrollTop -= host.top - r.top + r.height;
  }

  private onEvent(e: RuntimeEvent): void {
    if (e.session_id !== this.ctx.id) return;
    // Who did something, not what was printed: only the former changes the trail.
    if (e.type !== 'screen_changed' && e.type !== 'output') this.audit.changed();
    switch (e.type) {
      case 'moderation_changed':
        this.moderation.update(e.moderation as SessionInfo['moderation']);
        break;
      case 'lease_acquired':
      case 'lease_released':
        void this.refreshLeases();
        break;
      case 'input_preempted': {
        const by = e.by as { name: string; kind: string };
        const prev = e.previous as { name: string; kind: string };
        const me = this.ctx.me?.actor;
        if (me && by.name === me.name && by.kind === me.kind) this.notice(`You took over input: typing as a person ended ${prev.name}'s exclusive lease.`, 'info');
        else this.notice(`${by.name} (${by.kind}) took over input from ${prev.name} (${prev.kind}).`, 'info');
        void this.refreshLeases();
        break;
      }
      case 'client_attached':
      case 'client_detached':
      case 'title_changed':
      case 'resized':
        void this.refreshInfo();
        break;
      case 'secret_input_started':
      case 'secret_input_ended':
        void this.secret.refresh().then(() => this.renderOverlay());
        break;
    }
  }

  private async refreshLeases(): Promise<void> {
    try {
      this.leases = (await api<{ leases: Lease[] }>('GET', `/v1/sessions/${enc(this.ctx.id)}/leases`)).leases;
    } catch {
      this.leases = []; // the session is gone; its state is shown elsewhere
    }
    this.renderInfo();
  }

  private async refreshInfo(): Promise<void> {
    try {
      const info = await api<AnySession>('GET', `/v1/sessions/${enc(this.ctx.id)}`);
      if (info.live) this.info = info;
    } catch {
      return; // a transient failure only leaves the counts stale
    }
    this.renderTitle();
    this.renderInfo();
  }

  private async signal(sig: 'INT' | 'TERM' | 'KILL'): Promise<void> {
    try {
      // The server sends it to the terminal's foreground group, the running command, as Ctrl-C would.
      const { signalled: to } = await api<SignalAnswer>('POST', `/v1/sessions/${enc(this.ctx.id)}/signal`, { signal: sig });
      this.notice(to ? `Sent SIG${sig} to ${to.command ?? `process group ${to.pgid}`}.` : 'No process was left to signal.', 'info');
    } catch (err) {
      this.notice((err as Error).message, 'error');
    }
  }

  private async close(button: HTMLButtonElement): Promise<void> {
    // Two clicks: closing ends the program, and a stray click should not.
    if (button.dataset.armed !== '1') {
      button.dataset.armed = '1';
      button.textContent = 'Really close?';
      setTimeout(() => {
        button.dataset.armed = '';
        button.textContent = 'Close';
      }, 3000);
      return;
    }
    try {
      await api('DELETE', `/v1/sessions/${enc(this.ctx.id)}`);
      // A session that had already ended has no socket left to say so: show its record.
      if (this.state.kind !== 'attached') void this.connect();
    } catch (err) {
      this.notice((err as Error).message, 'error');
    }
  }

  private switchRole(role: Role): void {
    if (role === this.role && this.state.kind === 'attached') return;
    this.role = role;
    this.ctx.navigate(`/ui/sessions/${this.ctx.id}${role === 'viewer' ? '?role=viewer' : ''}`, true);
    void this.connect();
  }

  notice(message: string, tone: 'info' | 'warn' | 'error'): void {
    const el = h('div', { class: `notice notice-${tone}` }, h('span', {}, message), h('button', { class: 'link', 'aria-label': 'dismiss', onclick: () => el.remove() }, '×'));
    this.noticesEl.append(el);
    while (this.noticesEl.childElementCount > 4) this.noticesEl.firstElementChild?.remove();
  }

  // ---- rendering -------------------------------------------------------------------------------------------------

  private model(): PaneModel {
    return {
      id: this.ctx.id,
      state: this.state,
      info: this.info,
      role: this.role,
      canDrive: this.canDrive,
      leases: this.leases,
      gotOutput: this.gotOutput,
      secretActive: this.secret.active,
      paneFit: this.state.kind === 'attached' ? this.paneFit() : undefined,
    };
  }

  private readonly actions: PaneActions = {
    reconnect: () => void this.connect(),
    switchRole: (role) => this.switchRole(role),
    signal: (sig) => void this.signal(sig),
    close: (button) => void this.close(button),
    replay: () => void this.replay(),
    download: () =>
      void download(`/v1/sessions/${enc(this.ctx.id)}/transcript?format=asciicast`, `termhost-${this.ctx.id}.cast`).catch((err: Error) =>
        this.notice(`Could not download the transcript: ${err.message}`, 'error'),
      ),
    secretButton: () => this.secret.startButton(),
    fitToWindow: () => this.fitToWindow(),
  };

  private renderAll(): void {
    const m = this.model();
    this.root.dataset.paneState = m.state.kind;
    renderStatus(this.statusEl, m, this.actions);
    renderTitle(this.titleEl, m);
    renderRole(this.roleEl, m, this.actions);
    renderControls(this.controlsEl, m, this.actions);
    renderInfo(this.infoEl, m, this.actions);
    renderOverlay(this.overlayEl, m, this.actions);
    renderFoot(this.footEl, m, this.actions);
    this.renderFit();
  }

  private renderInfo(): void {
    renderInfo(this.infoEl, this.model(), this.actions);
  }

  private renderOverlay(): void {
    renderOverlay(this.overlayEl, this.model(), this.actions);
  }

  private renderTitle(): void {
    renderTitle(this.titleEl, this.model());
  }

  dispose(): void {
    this.generation++;
    clearTimeout(this.measureTimer);
    this.socket?.close();
    for (const c of this.cleanups.splice(0)) c();
    this.secret.dispose();
    this.view?.dispose();
    this.root.remove();
  }
}
