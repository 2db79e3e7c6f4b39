/**
 * Event-driven waits on a session: the screen contains text, matches a regex, has been quiet (no bytes), has been
 * stable (same text, whatever bytes arrive), or the process exited. Conditions are re-checked when the emulator
 * reports parsed output (coalesced to one check per event-loop turn), when the process exits, and when the quiet or
 * stable timer fires; nothing polls.
 */
import type { Screen } from '../../protocol/http.js';
import { TermError, fail, ok, type Result } from '../errors.js';
import { screenLines } from '../snapshot/screen.js';
import type { Session } from './Session.js';

export interface WaitCondition {
  text?: string;
  regex?: string;
  quiet_ms?: number;
  stable_ms?: number;
  exit?: boolean;
  timeout_ms: number;
}

export type WaitReason = 'text' | 'regex' | 'quiet' | 'stable' | 'exit' | 'timeout';

export interface WaitOutcome {
  matched: boolean;
  reason: WaitReason;
  /** Present when the wait ended because the process exited. */
  exit_code?: number | null;
  exit_signal?: string | null;
  screen: Screen;
}

export function compileWaitRegex(source: string): Result<RegExp> {
  try {
    return ok(new RegExp(source, 'm'));
  } catch (err) {
    return fail(new TermError('invalid_regex', `invalid regex: ${(err as Error).message}`));
  }
}

/**
 * Resolves when a condition holds, at the timeout, or when the process exits. A secret-input window open at the
 * start or opening meanwhile ends the wait with `secret_input_active`: no screen leaves while it is open.
 */
export function waitFor(session: Session, cond: WaitCondition, regex?: RegExp, signal?: AbortSignal): Promise<Result<WaitOutcome>> {
  const readable = session.readable();
  if (!readable.ok) return Promise.resolve(readable);
  return new Promise((resolve) => {
    const cleanups: Array<() => void> = [];
    let done = false;
    let checkQueued = false;

    const finish = (matched: boolean, reason: WaitReason) => {
      if (done) return;
      done = true;
      for (const c of cleanups) c();
      void session.emulator.whenParsed().then(() => {
        const now = session.readable();
        if (!now.ok) return resolve(now);
        const screen = session.screenNow();
        const outcome: WaitOutcome = { matched, reason, screen };
        if (reason === 'exit') Object.assign(outcome, { exit_code: screen.exit_code, exit_signal: screen.exit_signal });
        resolve(ok(outcome));
      });
    };

    const matchScreen = (): WaitReason | undefined => {
      if (cond.text === undefined && !regex) return undefined;
      const text = screenLines(session.emulator).join('\n');
      if (cond.text !== undefined && text.includes(cond.text)) return 'text';
      if (regex && regex.test(text)) return 'regex';
      return undefined;
    };

    // Stability is measured from the start of the wait at the earliest: the text must be seen unchanged that long.
    let stableText: string | undefined;
    let stableTimer: NodeJS.Timeout | undefined;
    const trackStable = () => {
      if (cond.stable_ms === undefined) return;
      const text = screenLines(session.emulator).join('\n');
      if (text === stableText && stableTimer) return;
      stableText = text;
      if (stableTimer) clearTimeout(stableTimer);
      stableTimer = setTimeout(() => finish(true, 'stable'), cond.stable_ms);
    };
    cleanups.push(() => stableTimer && clearTimeout(stableTimer));

    const check = () => {
      checkQueued = false;
      if (done) return;
      trackStable();
      const hit = matchScreen();
      if (hit) return finish(true, hit);
      if (cond.exit && session.exited) return finish(true, 'exit');
      // The process ended and its last bytes are parsed: no later output can satisfy a screen condition.
      if (session.exited) return finish(false, 'exit');
    };
    const queueCheck = () => {
      if (checkQueued || done) return;
      checkQueued = true;
      setImmediate(check);
    };

    let quietTimer: NodeJS.Timeout | undefined;
    const armQuiet = () => {
      if (cond.quiet_ms === undefined) return;
      if (quietTimer) clearTimeout(quietTimer);
      const last = session.lastOutputAt?.getTime() ?? session.createdAt.getTime();
      const remaining = Math.max(0, cond.quiet_ms - (Date.now() - last));
      quietTimer = setTimeout(() => {
        const since = Date.now() - (session.lastOutputAt?.getTime() ?? session.createdAt.getTime());
        if (since >= cond.quiet_ms!) finish(true, 'quiet');
        else armQuiet();
      }, remaining);
    };
    cleanups.push(() => quietTimer && clearTimeout(quietTimer));

    const timeout = setTimeout(() => finish(false, 'timeout'), cond.timeout_ms);
    cleanups.push(() => clearTimeout(timeout));
    // Only screen conditions need a look after each parsed chunk; a wait for the exit or for quiet sleeps through a
    // stream instead of queueing a check per PTY read.
    if (cond.text !== undefined || regex || cond.stable_ms !== undefined) cleanups.push(session.events.on('parsed', queueCheck));
    cleanups.push(session.events.on('exit', queueCheck));
    cleanups.push(session.events.on('secretStarted', () => finish(false, 'timeout')));
    if (signal) {
      const onAbort = () => finish(false, 'timeout');
      signal.addEventListener('abort', onAbort, { once: true });
      cleanups.push(() => signal.removeEventListener('abort', onAbort));
    }
    // Judge the current state only after everything already received is parsed.
    void session.emulator.whenParsed().then(() => {
      if (done) return;
      armQuiet();
      check();
    });
  });
}
