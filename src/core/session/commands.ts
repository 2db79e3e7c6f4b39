/**
 * One call per command: type a command at an integrated shell's prompt, wait for its D mark, and answer its exit
 * status and its own output (not the screen); or answer "running" at the timeout, or "input_needed" the moment the
 * command blocks on the terminal. Waits are event-driven (the shell tracker's changes, the secret window, exit).
 *
 * While a secret-input window is open a command is shown as it was when the window opened: its output up to there,
 * and, if it ended inside the window, still running until the window ends (its exit status comes from the output).
 */
import { Bounds, CommandDefaults } from '../../protocol/bounds.js';
import type { CommandOutputPage, CommandResult, CommandSummary, RunCommandRequest } from '../../protocol/http.js';
import type { Actor } from '../control/actor.js';
import { TermError, fail, ok, type Result } from '../errors.js';
import type { KnownShell } from '../shell/integration.js';
import { budgetOutput, pageOutput } from '../shell/outputBudget.js';
import type { CommandRecord, ShellTracker } from '../shell/ShellTracker.js';
import type { Session } from './Session.js';

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

const bad = (field: string, message: string): Result<never> => fail(new TermError('invalid_request', `${field} ${message}`, { field }));

function checkMs(field: string, v: number | undefined, max: number): Result<never> | undefined {
  if (v === undefined) return undefined;
  return Number.isInteger(v) && v >= 0 && v <= max ? undefined : bad(field, `must be an integer from 0 to ${max}`);
}

/**
 * The keystrokes that run `command` at `shell`'s prompt. A leading space keeps it out of the history (the scripts
 * set ignorespace / HIST_IGNORE_SPACE; fish does it by itself). Several lines go as one bracketed paste when the
 * shell enabled it, so the shell reads them as one command line; otherwise as a group the shell reads as one command.
 */
export function commandKeystrokes(command: string, shell: KnownShell, bracketedPaste: boolean): Buffer {
  const text = command.replace(/\r\n?/g, '\n').replace(/\n+$/, '');
  if (!text.includes('\n')) return Buffer.from(` ${text}\r`, 'utf8');
  if (bracketedPaste) return Buffer.from(` ${PASTE_START}${text}${PASTE_END}\r`, 'utf8');
  const grouped = shell === 'fish' ? `begin\n${text}\nend` : `{\n${text}\n}`;
  return Buffer.from(` ${grouped.replace(/\n/g, '\r')}\r`, 'utf8');
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** A command as a reader may see it now (see the module note on windows). */
export function summarize(session: Session, rec: CommandRecord): CommandSummary {
  const shell = session.shell;
  const ended = shell.visibleEnd(rec);
  const output = shell.tracker!.output(rec);
  return {
    id: rec.id,
    command: rec.command,
    status: ended ? 'exited' : rec.inputNeeded ? 'input_needed' : 'running',
    exit_code: ended ? rec.exitCode : null,
    rejected: ended && rec.rejected,
    started_at: iso(rec.startedAt)!,
    ended_at: ended ? iso(rec.endedAt) : null,
    duration_ms: ended && rec.endedAt !== null ? rec.endedAt - rec.startedAt : null,
    cwd: rec.cwd,
    typed_by: rec.typedBy,
    input_needed: ended ? null : rec.inputNeeded,
    output_bytes: output.length,
  };
}

function result(session: Session, rec: CommandRecord, maxOutputBytes: number): CommandResult {
  const summary = summarize(session, rec);
  const output = session.shell.tracker!.output(rec);
  const budget = budgetOutput(output, maxOutputBytes, `: page with GET /v1/sessions/${session.id}/commands/${rec.id}/output?offset=N`);
  return {
    ...summary,
    output: budget.text,
    output_truncated: budget.truncated,
    output_complete: !session.shell.tracker!.incomplete(rec),
    secret_input: session.secretActive,
  };
}

function trackerOf(session: Session): Result<ShellTracker> {
  const t = session.shell.tracker;
  if (t) return ok(t);
  const why =
    session.shell.integration === 'off'
      ? 'shell integration was turned off when the session was created'
      : `"${session.spec.command[0]}" is not a shell termhost integrates with (bash, zsh, fish)`;
  return fail(
    new TermError('no_shell_integration', `session "${session.id}" cannot run commands: ${why}`, {
      hint: 'type the command with POST .../input and wait for the screen with POST .../wait; or start a bash, zsh or fish session',
      shell_integration: session.shell.integration,
    }),
  );
}

/**
 * Resolves when the command has visibly ended, waits for input, or `timeoutMs` passed (or the caller went away, or
 * the session was freed). A command already waiting for input answers at once: an agent that has not answered it
 * learns that it still must. Answering (a line end, C-c) clears the wait until the kernel says otherwise.
 */
function settle(session: Session, rec: CommandRecord, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  session.lookAtTerminal();
  const done = () => session.shell.visibleEnd(rec) || (rec.endedAt === null && rec.inputNeeded !== null);
  if (done() || timeoutMs === 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const cleanups: Array<() => void> = [];
    const finish = () => {
      for (const c of cleanups) c();
      resolve();
    };
    const check = () => done() && finish();
    const timer = setTimeout(finish, timeoutMs);
    cleanups.push(() => clearTimeout(timer));
    for (const ev of ['shellChanged', 'secretEnded', 'exit'] as const) cleanups.push(session.events.on(ev, check));
    cleanups.push(session.events.on('disposed', finish));
    if (signal) {
      signal.addEventListener('abort', finish, { once: true });
      cleanups.push(() => signal.removeEventListener('abort', finish));
    }
  });
}

/** Resolves once the shell shows its prompt (or at the deadline); true if it does. */
function untilPrompt(session: Session, tracker: ShellTracker, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
  if (tracker.atPrompt || tracker.running || session.exited) return Promise.resolve(tracker.atPrompt);
  return new Promise((resolve) => {
    const cleanups: Array<() => void> = [];
    const finish = () => {
      for (const c of cleanups) c();
      resolve(tracker.atPrompt);
    };
    const check = () => (tracker.atPrompt || tracker.running || session.exited) && finish();
    const timer = setTimeout(finish, timeoutMs);
    cleanups.push(() => clearTimeout(timer));
    for (const ev of ['shellChanged', 'exit'] as const) cleanups.push(session.events.on(ev, check));
    cleanups.push(session.events.on('disposed', finish));
    if (signal) {
      signal.addEventListener('abort', finish, { once: true });
      cleanups.push(() => signal.removeEventListener('abort', finish));
    }
  });
}

/** Output must pause this long before text at a prompt is taken for something typed. */
const PROMPT_QUIET_MS = 100;
/** ...and a prompt that keeps redrawing is waited on this long at most. */
const PROMPT_SETTLE_MAX_MS = 1000;

/** Resolves once the session's output has paused for quietMs, or after maxMs. */
function untilQuiet(session: Session, quietMs: number, maxMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const deadline = Date.now() + maxMs;
    let timer: NodeJS.Timeout;
    const finish = () => {
      clearTimeout(timer);
      off();
      signal?.removeEventListener('abort', finish);
      resolve();
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(finish, Math.max(0, Math.min(quietMs, deadline - Date.now())));
    };
    const off = session.events.on('output', arm);
    signal?.addEventListener('abort', finish, { once: true });
    arm();
  });
}

export async function runCommand(session: Session, actor: Actor, req: RunCommandRequest, signal?: AbortSignal): Promise<Result<CommandResult>> {
  if (typeof req.command !== 'string' || req.command.length < 1 || req.command.length > Bounds.commandCharsMax) {
    return bad('command', `must be 1 to ${Bounds.commandCharsMax} characters`);
  }
  const badMs = checkMs('timeout_ms', req.timeout_ms, Bounds.commandTimeoutMsMax) ?? checkMs('max_output_bytes', req.max_output_bytes, Bounds.commandOutputBytesMax);
  if (badMs) return badMs;
  const tracker = trackerOf(session);
  if (!tracker.ok) return tracker;
  const t = tracker.value;
  if (session.exited) return fail(new TermError('session_exited', `session "${session.id}" has exited; it runs no more commands`));
  const readable = session.readable();
  if (!readable.ok) return readable;
  const timeoutMs = req.timeout_ms ?? CommandDefaults.timeoutMs;
  const startedWaiting = Date.now();
  const running = (): Result<never> => {
    const rec = t.running!;
    return fail(
      new TermError('command_running', `command ${rec.id} is still running in session "${session.id}"`, {
        command_id: rec.id,
        hint: `wait for it with GET /v1/sessions/${session.id}/commands/${rec.id}?wait_ms=..., or interrupt it with input C-c`,
      }),
    );
  };
  if (t.running) return running();
  // A session just created has not drawn its first prompt yet; nor has a shell that just finished a command.
  if (!t.atPrompt && !(await untilPrompt(session, t, timeoutMs, signal))) {
    if (t.running) return running();
    return fail(new TermError('not_at_prompt', `session "${session.id}" shows no shell prompt (state ${session.shell.state().state}); wait for the prompt and try again`));
  }
  // A shell may still be drawing at its prompt (fish's right prompt, a repaint): what is typed stays, what it draws
  // settles.
  if (!t.promptIsEmpty()) await untilQuiet(session, PROMPT_QUIET_MS, PROMPT_SETTLE_MAX_MS, signal);
  if (!t.promptIsEmpty()) {
    return fail(
      new TermError('not_at_prompt', `text is already typed at the prompt of session "${session.id}"; clear it (send C-u, or C-c) or let its typist finish`, t.promptPosition()),
    );
  }
  const modes = session.emulator.modes;
  const bytes = commandKeystrokes(req.command, t.shell, modes.bracketed_paste);
  const rec = t.expect(req.command, actor);
  const written = session.input(actor, bytes, { leaseId: req.lease_id, source: 'api' });
  if (!written.ok) {
    t.abandon(rec);
    return written;
  }
  await settle(session, rec, Math.max(0, timeoutMs - (Date.now() - startedWaiting)), signal);
  return answer(session, rec, req.max_output_bytes);
}

function answer(session: Session, rec: CommandRecord, maxOutputBytes: number | undefined): Result<CommandResult> {
  return ok(result(session, rec, maxOutputBytes ?? CommandDefaults.maxOutputBytes));
}

function recordOf(session: Session, t: ShellTracker, id: string): Result<CommandRecord> {
  const rec = t.get(id);
  if (rec) return ok(rec);
  return fail(new TermError('command_id_not_found', `no command "${id}" in session "${session.id}" (the last ${t.list().length} are kept)`));
}

/** A command by id; with `waitMs`, a running one is waited on (a long poll) until it ends or needs input. */
export async function getCommand(
  session: Session,
  id: string,
  opts: { waitMs?: number; maxOutputBytes?: number },
  signal?: AbortSignal,
): Promise<Result<CommandResult>> {
  const badMs = checkMs('wait_ms', opts.waitMs, Bounds.commandTimeoutMsMax) ?? checkMs('max_output_bytes', opts.maxOutputBytes, Bounds.commandOutputBytesMax);
  if (badMs) return badMs;
  const tracker = trackerOf(session);
  if (!tracker.ok) return tracker;
  const rec = recordOf(session, tracker.value, id);
  if (!rec.ok) return rec;
  if (opts.waitMs) await settle(session, rec.value, opts.waitMs, signal);
  return answer(session, rec.value, opts.maxOutputBytes);
}

/** The commands the session's shell ran (the last 100), oldest first. */
export function listCommands(session: Session): Result<CommandSummary[]> {
  const tracker = trackerOf(session);
  if (!tracker.ok) return tracker;
  return ok(tracker.value.list().map((rec) => summarize(session, rec)));
}

/** A page of a command's whole output, by byte offset. */
export function commandOutput(session: Session, id: string, offset = 0, limit: number = CommandDefaults.pageBytes): Result<CommandOutputPage> {
  if (!Number.isInteger(offset) || offset < 0) return bad('offset', 'must be a non-negative integer');
  if (!Number.isInteger(limit) || limit < 1 || limit > Bounds.commandOutputPageBytesMax) return bad('limit', `must be an integer from 1 to ${Bounds.commandOutputPageBytesMax}`);
  const tracker = trackerOf(session);
  if (!tracker.ok) return tracker;
  const rec = recordOf(session, tracker.value, id);
  if (!rec.ok) return rec;
  const output = tracker.value.output(rec.value);
  const page = pageOutput(output, offset, limit);
  return ok({ command_id: id, ...page, complete: session.shell.visibleEnd(rec.value) && !tracker.value.incomplete(rec.value) });
}
