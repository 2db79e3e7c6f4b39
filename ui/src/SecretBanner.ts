/**
 * The secret-input banner of a pane: who opened the window and why, a plain statement that agents cannot see what is
 * typed, and the person's "Done" that ends it. Ending waits for the session's output to settle, so the server may
 * answer `secret_input_settling` (retryable): Done retries until it may close, within a deadline.
 */
import { api, ApiError, enc } from './api.js';
import type { SecretInput } from './attachSocket.js';
import { fill, h, icon } from './dom.js';
import type { Me } from './types.js';

/** How long "Done" keeps retrying a window whose session keeps printing. */
const DONE_DEADLINE_MS = 15_000;

const CLOSED: SecretInput = { active: false, since: null, reason: null, started_by: null };

export class SecretBanner {
  readonly root = h('div', { class: 'secret-banner', hidden: true, role: 'status' });
  private state: SecretInput = CLOSED;
  private ending = false;
  private disposed = false;
  onChange: () => void = () => {};

  constructor(
    private readonly sessionId: string,
    private readonly me: Me | undefined,
    private readonly onError: (message: string) => void,
  ) {}

  get active(): boolean {
    return this.state.active;
  }

  private get isPerson(): boolean {
    const k = this.me?.actor.kind;
    return k === 'human' || k === 'admin';
  }

  update(s: SecretInput): void {
    const changed = s.active !== this.state.active;
    this.state = s;
    this.render();
    if (changed) this.onChange();
  }

  async refresh(): Promise<void> {
    try {
      this.update(await api<SecretInput>('GET', `/v1/sessions/${enc(this.sessionId)}/secret-input`));
    } catch {
      /* the session is gone or unreachable; the pane's state says so */
    }
  }

  /** "Secret input": anyone may open a window, a person before typing a password for instance. */
  startButton(): HTMLButtonElement {
    return h(
      'button',
      {
        class: 'btn btn-small btn-secret',
        title: 'Hide this session from agents and every API reader while you type something secret',
        onclick: () => void this.start(),
      },
      icon('lock'),
      'Secret input',
    );
  }

  private async start(): Promise<void> {
    try {
      const who = this.me ? `${this.me.actor.name} (${this.me.actor.kind})` : 'someone';
      this.update(await api<SecretInput>('POST', `/v1/sessions/${enc(this.sessionId)}/secret-input/actions`, { action: 'start', reason: `${who} is about to type a secret from the browser` }));
    } catch (err) {
      this.onError((err as Error).message);
    }
  }

  private async done(button: HTMLButtonElement): Promise<void> {
    if (this.ending) return;
    this.ending = true;
    button.disabled = true;
    button.textContent = 'Finishing…';
    const deadline = Date.now() + DONE_DEADLINE_MS;
    try {
      for (;;) {
        try {
          this.update(await api<SecretInput>('POST', `/v1/sessions/${enc(this.sessionId)}/secret-input/actions`, { action: 'end' }));
          return;
        } catch (err) {
          const e = err as ApiError;
          if (this.disposed) return;
          if (e.code !== 'secret_input_settling' || !e.retryable || Date.now() > deadline) {
            this.onError(e.code === 'secret_input_settling' ? 'The session is still printing; Done will work once it is quiet.' : e.message);
            return;
          }
          // The server says how long the output must stay quiet; wait that long, at least a little.
          const wait = Math.min(1000, Math.max(25, Number(e.body.retry_after_ms ?? 100)));
          await new Promise((r) => setTimeout(r, wait));
        }
      }
    } finally {
      this.ending = false;
      this.render();
    }
  }

  private render(): void {
    const s = this.state;
    this.root.hidden = !s.active;
    if (!s.active) return fill(this.root);
    const by = s.started_by ? `${s.started_by.name} (${s.started_by.kind === 'system' ? 'the password-prompt detector' : s.started_by.kind})` : 'someone';
    const done: HTMLButtonElement = h('button', { class: 'btn btn-primary', onclick: () => void this.done(done) }, 'Done');
    fill(
      this.root,
      icon('lock', 'secret-icon'),
      h(
        'div',
        { class: 'secret-text' },
        h('div', { class: 'secret-title' }, 'Secret input is on'),
        h('div', {}, `Started by ${by}${s.reason ? `: ${s.reason}` : ''}.`),
        h(
          'div',
          { class: 'secret-promise' },
          this.isPerson
            ? 'Agents cannot see what you type here: the screen is hidden from every API read, stream and transcript until you press Done.'
            : 'A person is typing a secret. Agents cannot see it, and the screen stays hidden until a person presses Done.',
        ),
      ),
      this.isPerson && done,
    );
  }

  dispose(): void {
    this.disposed = true;
  }
}
