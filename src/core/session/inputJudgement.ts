/**
 * Pure: the kernel's evidence about a terminal (terminalEvidence.ts) -> whether its program waits for input, of which
 * kind, and whether a password prompt that opened a secret-input window is gone. Tested as a table.
 */
import type { TerminalEvidence } from '../pty/terminalEvidence.js';
import { looksLikeSecretPrompt } from '../control/SecretWindow.js';
import type { InputNeeded } from '../shell/ShellTracker.js';

export interface InputContext {
  /**
   * With shell integration: whether the shell runs a command (a shell at its prompt, or still starting, is not a
   * program waiting for input). Undefined without integration.
   */
  commandRunning: boolean | undefined;
  /** The session's program is a shell: without integration, its own group holding the terminal means its prompt. */
  isShell: boolean;
  /** The session's first process, which leads its own group. */
  leaderPid: number;
  /** The cursor's row, left of the cursor: the prompt. */
  cursorLine: string;
}

/**
 * `line`: a line read with echo (`Continue? [Y/n]`); `password`: a line read without echo; `raw`: a program in raw
 * mode blocked on the terminal or on poll/select (a full-screen program waiting for a key). A program that is not
 * blocked reading (sleeping, computing, waiting on a child or the network in canonical mode) waits for nothing.
 * When /proc cannot say how the program waits (a setuid program such as sudo), echo off in canonical mode is taken
 * as a password prompt: few programs turn echo off for anything else, and the mistake is the safe one.
 */
export function judgeInputNeeded(e: TerminalEvidence, ctx: InputContext): InputNeeded | null {
  if (ctx.commandRunning === false) return null;
  if (ctx.commandRunning === undefined && ctx.isShell && e.foreground === ctx.leaderPid) return null;
  if (e.foreground <= 0 || e.unreadInput > 0) return null;
  // trimEnd, not /\s+$/: on a line of spaces ending in a character (the program prints it) that regex backtracks in
  // quadratic time, 4 ms a judgement at 1000 columns.
  const prompt = ctx.cursorLine.trimEnd();
  if (e.icanon) {
    if (e.wait === 'read') return { kind: e.echo ? 'line' : 'password', prompt };
    if (e.wait === 'unknown' && !e.echo) return { kind: 'password', prompt };
    return null;
  }
  return e.wait === 'read' || e.wait === 'poll' ? { kind: 'raw', prompt } : null;
}

/**
 * A window the detector opened may close by itself once its prompt is gone and the program has consumed what was
 * typed: nothing waits for a secret line any more (no canonical read with echo off, nor one whose cursor line still
 * looks like a password prompt), no typed line is left unread, and termhost has nothing left to write. The caller
 * also requires the session to have been quiet for the settle time, both ways.
 */
export function secretPromptGone(e: TerminalEvidence | undefined, cursorLine: string, unwrittenBytes: number): boolean {
  if (!e) return unwrittenBytes === 0; // the terminal is closed: the program is gone
  if (unwrittenBytes > 0 || e.unreadInput !== 0) return false;
  if (!e.icanon) return e.wait !== 'unknown';
  if (e.wait === 'unknown') return false;
  const readsSecret = e.wait === 'read' && (!e.echo || looksLikeSecretPrompt(cursorLine));
  return !readsSecret;
}
