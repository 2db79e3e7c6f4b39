/**
 * Event-driven waits on a session: the screen contains text, matches a regex, has been quiet (no bytes), has been
 * stable (same text, whatever bytes arrive), or the process exited. Conditions are re-checked when the emulator
 * reports parsed output (coalesced to one check per event-loop turn), when the process exits, and when the quiet or
 * stable timer fires; nothing polls.
 */
import type { Screen } from '../../protocol/http.js';
import { TermError, fail, ok, type Result } from '../errors.js';
import { Bounds } from '../../protocol/bounds.js';
import { regexMatcher } from '../regex/RegexMatcher.js';
import { screenLines, textAfterRow } from '../snapshot/screen.js';
import type { InputPoint } from './InputMarks.js';
import type { Session } from './Session.js';
import type { InputNeeded } from '../shell/ShellTracker.js';

export interface WaitCondition {
  text?: string;
  regex?: string;
  quiet_ms?: number;
  stable_ms?: number;
  exit?: boolean;
  /** Text and regex look only below the line where the input answered with this seq was typed. */
  after_seq?: number;
  /** The same, for the last input anyone sent. */
  after_input?: boolean;
  /** The shell is at its prompt with nothing typed (shell integration). */
  prompt?: boolean;
  /** The foreground program waits on the terminal for input (kernel evidence). */
  input_needed?: boolean;
  timeout_ms: number;
}

export type WaitReason = 'text' | 'regex' | 'quiet' | 'stable' | 'exit' | 'prompt' | 'input_needed' | 'timeout';

export interface WaitOutcome {
  matched: boolean;
  reason: WaitReason;
  /** Present when the wait ended because the process exited. */
  exit_code?: number | null;
  exit_signal?: string | null;
  /** Present when the wait ended because the program waits for input. */
  input_needed?: InputNeeded;
  screen: Screen;
}

const badWait = (field: string, message: string): Result<never> => fail(new TermError('invalid_request', `${field} ${message}`, { field }));

/** The bounds of a wait condition, for every edge (protocol/bounds.ts). */
export function checkWaitCondition(cond: WaitCondition): Result<void> {
  const ms = (field: 'timeout_ms' | 'quiet_ms' | 'stable_ms', min: number) => {
    const v = cond[field];
    if (v === undefined) return undefined;
    return Number.isInteger(v) && v >= min && v <= Bounds.waitMsMax ? undefined : badWait(field, `must be an integer from ${min} to ${Bounds.waitMsMax}`);
  };
  if (cond.timeout_ms === undefined) return badWait('timeout_ms', 'is required');
  const bad = ms('timeout_ms', 0) ?? ms('quiet_ms', 1) ?? ms('stable_ms', 1);
  if (bad) return bad;
  if (cond.text !== undefined && (typeof cond.text !== 'string' || cond.text.length < 1)) return badWait('text', 'must be a non-empty string');
  if (cond.regex !== undefined && (typeof cond.regex !== 'string' || cond.regex.length < 1 || cond.regex.length > Bounds.regexCharsMax)) {
    return badWait('regex', `must be 1 to ${Bounds.regexCharsMax} characters`);
  }
  if (cond.after_seq !== undefined && (!Number.isInteger(cond.after_seq) || cond.after_seq < 0)) return badWait('after_seq', 'must be a non-negative integer');
  for (const f of ['prompt', 'input_needed', 'exit', 'after_input'] as const) {
    if (cond[f] !== undefined && typeof cond[f] !== 'boolean') return badWait(f, 'must be true or false');
  }
  return ok(undefined);
}

/** Compiles to check the syntax; matching itself happens off the event loop (RegexMatcher). */
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
export function waitFor(
  session: Session,
  cond: WaitCondition,
  regex?: RegExp,
  signal?: AbortSignal,
  /** With after_seq/after_input: the buffer line the input was typed on, read live (it moves as the screen scrolls). */
  afterRow?: () => InputPoint,
): Promise<Result<WaitOutcome>> {
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
        const needed = session.shell.inputNeeded;
        if (reason === 'input_needed' && needed) outcome.input_needed = needed;
        resolve(ok(outcome));
      });
    };
    const failWith = (error: TermError) => {
      if (done) return;
      done = true;
      for (const c of cleanups) c();
      resolve(fail(error));
    };

    const searchedText = () => (afterRow ? textAfterRow(session.emulator, afterRow()) : screenLines(session.emulator).join('\n'));
    // One regex match at a time per wait; output that arrives meanwhile asks for one more when it answers.
    let matching = false;
    let again = false;

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

    const afterScreen = () => {
      if (cond.exit && session.exited) return finish(true, 'exit');
      // The process ended and its last bytes are parsed: no later output can satisfy a screen condition.
      if (session.exited) return finish(false, 'exit');
    };
    const shellMatch = (): WaitReason | undefined => {
      const t = session.shell.tracker;
      if (cond.prompt && t?.atPrompt && t.promptIsEmpty()) return 'prompt';
      if (cond.input_needed && session.shell.inputNeeded) return 'input_needed';
      return undefined;
    };
    const check = () => {
      checkQueued = false;
      if (done) return;
      const shell = shellMatch();
      if (shell) return finish(true, shell);
      trackStable();
      if (cond.text === undefined && !regex) return afterScreen();
      const text = searchedText();
      if (cond.text !== undefined && text.includes(cond.text)) return finish(true, 'text');
      if (!regex) return afterScreen();
      if (matching) return void (again = true);
      matching = true;
      void regexMatcher.match(regex.source, regex.flags, text).then((r) => {
        matching = false;
        if (done) return;
        if (!r.ok) return failWith(r.error);
        if (r.value) return finish(true, 'regex');
        if (again) {
          again = false;
          return queueCheck();
        }
        afterScreen();
      });
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
    if (cond.prompt || cond.input_needed) cleanups.push(session.events.on('shellChanged', queueCheck));
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
