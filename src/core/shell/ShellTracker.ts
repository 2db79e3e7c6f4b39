/**
 * What an integrated shell is doing, from its trusted marks (marks.ts), and the commands it ran: at its prompt,
 * running a command (which, since when), and each command's exit status, working directory and output
 * (OutputCapture). The emulator hands the marks over while it parses them, so every position is exact.
 *
 * A command typed through the API is announced first (`expect`); the shell's C mark then starts it. A shell that
 * ends the command without a C mark refused it: bash and zsh say so with a D mark (a syntax error), fish by drawing
 * its prompt again with the line still in its editor.
 */
import type { Actor } from '../control/actor.js';
import type { Emulator } from '../emulator/Emulator.js';
import { Limits } from '../limits.js';
import type { KnownShell } from './integration.js';
import { parseCwd, parseMark, type ShellMark } from './marks.js';
import { lineSegment, OutputCapture, SECRET_PLACEHOLDER, type BufferPoint } from './OutputCapture.js';

export type InputNeededKind = 'line' | 'password' | 'raw';

export interface InputNeeded {
  kind: InputNeededKind;
  /** The cursor's line when the program began waiting. */
  prompt: string;
}

export type CommandStatus = 'running' | 'input_needed' | 'exited';

/** One command the shell ran, as termhost keeps it. */
export interface CommandRecord {
  id: string;
  command: string;
  /**
   * Epoch ms: when termhost typed it, for a command sent through the API (so its duration is the caller's wait, from
   * Enter to the D mark); when the C mark was parsed, for one a person typed.
   */
  startedAt: number;
  endedAt: number | null;
  exitCode: number | null;
  cwd: string | null;
  typedBy: Actor | null;
  /** The program waits on the terminal for input (kernel evidence; see InputProbe), while it runs. */
  inputNeeded: InputNeeded | null;
  /**
   * The shell refused the command without running it (no C mark): a syntax error. bash reports 2 for it; zsh leaves
   * $? as the previous command set it and fish reports nothing, so their exit code is null.
   */
  rejected: boolean;
  /** Set once the command ended; before that, read through `output()`. */
  finalOutput: Buffer | null;
  outputIncomplete: boolean;
  /** The C mark came: the command is running (not only typed). */
  started: boolean;
  /** Stream offsets where its output started (just after its C mark) and ended (at its D mark), for transcripts. */
  startSeq: number | null;
  endSeq: number | null;
  capture: OutputCapture | undefined;
}

export interface TrackerHooks {
  /** The shell state changed: a prompt, a command started or ended, input needed or resumed. */
  changed(): void;
  started(rec: CommandRecord): void;
  finished(rec: CommandRecord): void;
}

/** The command line as a person typed it is read from the screen; at most this much of it. */
const COMMAND_LINE_CHARS_MAX = 4096;

type Phase = 'starting' | 'prompt' | 'input' | 'running';

export class ShellTracker {
  private phase: Phase = 'starting';
  private promptEnd: BufferPoint | undefined;
  private current: CommandRecord | undefined;
  /**
   * fish drew a new prompt below a line termhost typed, before the line started: either it refused the line (a syntax
   * error, said above the new prompt) or something else was announced first (a background job's end) and the line is
   * still to be read. Which one, the kernel tells: see shellReads. Where the refusal's message starts and ends.
   */
  private reprompt: { from: BufferPoint | undefined; end: BufferPoint | undefined; seq: number } | undefined;
  /** Records, oldest first, at most Limits.commandsKept. */
  private readonly records: CommandRecord[] = [];
  private nextId = 1;
  private keptOutputBytes = 0;
  /** Who typed since the prompt was drawn: a command typed by exactly one actor is credited to them. */
  private typists = new Map<string, Actor>();
  /** A secret-input window is open. */
  private secretOpen = false;
  /**
   * A window was open at some moment since the prompt ended: what a person typed at the prompt may be a secret
   * (`mysql -p...`), so the command line is never read from the screen.
   */
  private secretSincePrompt = false;
  /**
   * One OSC 7 is believed right after a trusted D (or before the first prompt): the scripts print the two in one
   * write, which the terminal keeps whole, so a program printing in the background cannot get one in between.
   * Believing any OSC 7 until the next prompt let a background loop move the working directory.
   */
  private cwdOpen = true;
  cwd: string | null = null;
  untrustedMarks = 0;
  /** Epoch ms the state last changed. */
  since = Date.now();

  constructor(
    private readonly emu: Emulator,
    private readonly nonce: string,
    readonly shell: KnownShell,
    private readonly hooks: TrackerHooks,
  ) {
    emu.onShellEscape((ident, data) => (ident === 133 ? this.mark(data) : this.osc7(data)));
    emu.watchTrims({
      trimmed: (line) => this.current?.capture?.trimmed(line),
      lost: (n) => this.current?.capture?.lost(n),
    });
  }

  /** The running (or typed, not yet started) command. */
  get running(): CommandRecord | undefined {
    return this.current;
  }

  /** Drawn a prompt and waiting there, with nothing typed on it yet. */
  get atPrompt(): boolean {
    return this.phase === 'input' && !this.current;
  }

  get started(): boolean {
    return this.phase !== 'starting';
  }

  /** Nothing typed after the prompt: the cursor is where the prompt ended. */
  promptIsEmpty(): boolean {
    const p = this.promptEnd;
    if (!p || p.marker.isDisposed) return false;
    const normal = this.emu.term.buffer.normal;
    return !this.emu.altScreen && p.marker.line === normal.baseY + normal.cursorY && p.col === normal.cursorX;
  }

  /** Where the prompt ended and where the cursor is (buffer line, column): what promptIsEmpty compared. */
  promptPosition(): { prompt_end: { line: number; col: number } | null; cursor: { line: number; col: number } } {
    const p = this.promptEnd;
    const normal = this.emu.term.buffer.normal;
    return {
      prompt_end: p && !p.marker.isDisposed ? { line: p.marker.line, col: p.col } : null,
      cursor: { line: normal.baseY + normal.cursorY, col: normal.cursorX },
    };
  }

  get state(): 'unknown' | 'at_prompt' | 'running' | 'input_needed' {
    if (this.current) return this.current.inputNeeded ? 'input_needed' : 'running';
    return this.phase === 'starting' ? 'unknown' : this.phase === 'running' ? 'running' : 'at_prompt';
  }

  list(): readonly CommandRecord[] {
    return this.records;
  }

  get(id: string): CommandRecord | undefined {
    return this.records.find((r) => r.id === id);
  }

  /** The output so far (running) or all of it (ended). */
  output(rec: CommandRecord): Buffer {
    if (rec.finalOutput) return rec.finalOutput;
    return rec.capture ? rec.capture.snapshot() : Buffer.alloc(0);
  }

  /** Some of the command's output could not be kept. */
  incomplete(rec: CommandRecord): boolean {
    return rec.finalOutput ? rec.outputIncomplete : (rec.capture?.incomplete ?? false);
  }

  /** The typing of an expected command was refused: forget it. */
  abandon(rec: CommandRecord): void {
    if (this.current === rec) this.current = undefined;
    const i = this.records.indexOf(rec);
    if (i >= 0) this.records.splice(i, 1);
    this.changed();
  }

  /** termhost is about to type `command` for `actor`: the next command the shell starts is this one. */
  expect(command: string, actor: Actor): CommandRecord {
    const rec = this.newRecord(command, { name: actor.name, kind: actor.kind });
    this.current = rec;
    this.changed();
    return rec;
  }

  /** Input was accepted from `actor`. */
  noteInput(actor: Actor): void {
    if (this.phase === 'input' || this.phase === 'prompt') this.typists.set(`${actor.kind}:${actor.name}`, actor);
  }

  /** The kernel says the running command waits for input, or no longer does (null). */
  setInputNeeded(needed: InputNeeded | null): void {
    const rec = this.current;
    if (!rec || !rec.started) return;
    if ((rec.inputNeeded === null) === (needed === null) && (!needed || rec.inputNeeded?.kind === needed.kind)) return;
    rec.inputNeeded = needed;
    this.changed();
  }

  /** A secret-input window opened: the running command's output is frozen up to here. */
  secretOpened(): void {
    this.secretOpen = true;
    this.secretSincePrompt = true;
    const at = this.emu.cursorMark();
    if (at && this.current?.capture) this.current.capture.cut(at);
    else at?.marker.dispose();
  }

  /** The window closed: the command's output resumes at the cursor. */
  secretClosed(): void {
    this.secretOpen = false;
    const at = this.emu.cursorMark();
    if (at && this.current?.capture) this.current.capture.resume(at);
    else at?.marker.dispose();
  }

  /** The shell itself ended (`exit 3` typed as a command): the command ends with the shell's status. */
  processExited(code: number | null): void {
    if (this.current) this.finish(code, undefined, this.emu.parsedOffset);
  }

  dispose(): void {
    this.dropReprompt();
    this.current?.capture?.dispose();
    this.promptEnd?.marker.dispose();
  }

  private newRecord(command: string, typedBy: Actor | null): CommandRecord {
    const rec: CommandRecord = {
      id: `c${this.nextId++}`,
      command,
      startedAt: Date.now(),
      endedAt: null,
      exitCode: null,
      cwd: this.cwd,
      typedBy,
      inputNeeded: null,
      rejected: false,
      finalOutput: null,
      outputIncomplete: false,
      started: false,
      startSeq: null,
      endSeq: null,
      capture: undefined,
    };
    this.records.push(rec);
    if (this.records.length > Limits.commandsKept) this.keptOutputBytes -= this.records.shift()!.finalOutput?.length ?? 0;
    return rec;
  }

  private osc7(data: string): void {
    if (!this.cwdOpen) {
      this.untrustedMarks++;
      return;
    }
    this.cwdOpen = false;
    const cwd = parseCwd(data);
    if (cwd !== undefined) this.cwd = cwd;
  }

  private mark(data: string): void {
    const m = parseMark(data, this.nonce);
    if (m === undefined) return;
    if (m === 'untrusted') {
      this.untrustedMarks++;
      return;
    }
    this.apply(m, data);
  }

  private apply(m: ShellMark, data: string): void {
    switch (m.kind) {
      case 'A':
        this.cwdOpen = false;
        if (this.current?.started) this.finish(null, undefined, this.emu.escapeAt(133, data).start); // the D mark never came
        else if (this.current && this.shell === 'fish' && !this.repaintsPrompt() && !this.reprompt) {
          this.reprompt = { from: this.belowTypedLine(), end: this.emu.cursorMark(), seq: this.emu.escapeAt(133, data).start };
        }
        if (this.phase !== 'prompt' && this.phase !== 'input') this.typists.clear();
        this.setPhase('prompt');
        return;
      case 'B':
        this.promptEnd?.marker.dispose();
        this.promptEnd = this.emu.cursorMark();
        this.secretSincePrompt = this.secretOpen;
        this.setPhase('input');
        return;
      case 'C':
        // The output starts just after the C mark.
        this.startCommand(this.emu.escapeAt(133, data).end);
        return;
      case 'D':
        this.cwdOpen = true;
        // The output ends just before the D mark.
        if (this.current) this.finish(m.status, this.emu.cursorMark(), this.emu.escapeAt(133, data).start);
        return;
    }
  }

  private setPhase(phase: Phase): void {
    if (this.phase === phase) return;
    this.phase = phase;
    this.changed();
  }

  private startCommand(seq: number): void {
    const at = this.emu.cursorMark();
    let rec = this.current;
    if (rec?.started) return; // a second C (a nested shell's): the first command still runs
    this.dropReprompt(); // the new prompt was not a refusal: the line runs
    if (!rec) {
      const typists = [...this.typists.values()];
      rec = this.newRecord(this.secretSincePrompt ? SECRET_PLACEHOLDER : this.typedLine(at), typists.length === 1 ? typists[0]! : null);
      this.current = rec;
    }
    this.typists.clear();
    rec.started = true;
    rec.startSeq = seq;
    rec.cwd = this.cwd;
    if (at) rec.capture = this.capture(at);
    this.phase = 'running';
    this.hooks.started(rec);
    this.changed();
  }

  /** What was typed at the prompt: the screen from the prompt's end to where the output starts. */
  private typedLine(at: BufferPoint | undefined): string {
    const from = this.promptEnd;
    if (!from || from.marker.isDisposed || !at) return '';
    const lines: string[] = [];
    for (let y = from.marker.line; y < at.marker.line; y++) {
      const line = this.emu.normalBufferLine(y);
      if (!line) break;
      const text = lineSegment(line, y === from.marker.line ? from.col : 0);
      if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    return lines.join('\n').trim().slice(0, COMMAND_LINE_CHARS_MAX);
  }

  /**
   * The command ended with `status` at `end` (its D mark). A typed command the shell never started (a syntax error)
   * ends here too: its output is what the shell printed below the typed line. (fish refuses a line by drawing its
   * prompt again; termhost typed the line, so the session clears it.)
   */
  private finish(status: number | null, end: BufferPoint | undefined, seq: number, refusedFrom?: BufferPoint): void {
    const rec = this.current!;
    this.current = undefined;
    this.dropReprompt();
    if (!rec.started && end) {
      const from = refusedFrom ?? this.belowTypedLine();
      // What the shell printed about a line typed during a window quotes the line: hidden with it.
      if (from) rec.capture = this.capture(from, this.secretSincePrompt);
      rec.rejected = true;
      if (this.shell !== 'bash') status = null;
    }
    rec.exitCode = status;
    rec.endedAt = Date.now();
    rec.endSeq = seq;
    rec.startSeq ??= rec.endSeq;
    rec.inputNeeded = null;
    rec.finalOutput = rec.capture ? rec.capture.finish(end) : Buffer.alloc(0);
    rec.outputIncomplete = rec.capture?.incomplete ?? false;
    rec.capture = undefined;
    end?.marker.dispose();
    this.keptOutputBytes += rec.finalOutput.length;
    // Whole outputs are kept within a budget per session; the oldest go first (their records stay).
    for (const old of this.records) {
      if (this.keptOutputBytes <= Limits.commandOutputKeptBytes || old === rec) break;
      if (old.finalOutput && old.finalOutput.length > 0) {
        this.keptOutputBytes -= old.finalOutput.length;
        old.finalOutput = Buffer.alloc(0);
        old.outputIncomplete = true;
      }
    }
    this.phase = 'prompt';
    this.hooks.finished(rec);
    this.changed();
  }

  /**
   * A command's output from `from`. Output that starts inside a secret-input window (a command a person ran from the
   * window, one that started while it was open) starts cut: the window's bytes are never read.
   */
  private capture(from: BufferPoint, cut = this.secretOpen): OutputCapture {
    const capture = new OutputCapture(this.emu, from, Limits.commandSpoolChars);
    if (cut) {
      const at = this.emu.cursorMark();
      if (at) capture.cut(at);
    }
    return capture;
  }

  /** The start of the line below the typed command line (and its wrapped continuation). */
  private belowTypedLine(): BufferPoint | undefined {
    const from = this.promptEnd;
    if (!from || from.marker.isDisposed) return undefined;
    let y = from.marker.line + 1;
    while (this.emu.normalBufferLine(y)?.isWrapped) y++;
    const normal = this.emu.term.buffer.normal;
    const marker = this.emu.term.registerMarker(y - (normal.baseY + normal.cursorY));
    return marker && { marker, col: 0 };
  }

  /**
   * The shell itself waits on the terminal with nothing typed left unread (the kernel's word, InputWatch): a line fish
   * answered with a new prompt has been read and did not start, so it was refused. A line still unread when the new
   * prompt came (a job's notice drawn first) starts later with its C mark instead.
   */
  shellReads(): void {
    const r = this.reprompt;
    if (!r || !this.current || this.current.started) return;
    this.reprompt = undefined;
    this.finish(null, r.end, r.seq, r.from);
  }

  private dropReprompt(): void {
    const r = this.reprompt;
    if (!r) return;
    this.reprompt = undefined;
    r.from?.marker.dispose();
    r.end?.marker.dispose();
  }

  /**
   * Whether an A mark draws the prompt again where it stands, rather than a new prompt below it. fish repaints its
   * prompt in place whenever something else wrote to the terminal (a background job's output, even an invisible
   * escape), keeping the line being typed; a line it refuses gets a new prompt below the error. Taking a repaint for
   * a refusal ended a typed command before it ran, and the next one found it running or still on the line.
   */
  private repaintsPrompt(): boolean {
    const p = this.promptEnd;
    if (!p || p.marker.isDisposed) return false;
    const normal = this.emu.term.buffer.normal;
    return normal.baseY + normal.cursorY <= p.marker.line;
  }

  private changed(): void {
    this.since = Date.now();
    this.hooks.changed();
  }
}
