/** The types a session speaks in: its resolved spec, its exit reasons, and the events it emits. */
import type { Actor } from '../control/actor.js';
import type { Lease, ReleaseReason } from '../control/LeaseTable.js';
import type { ModerationChange } from '../../protocol/moderation.js';
import type { PtyExit } from '../pty/PtyProcess.js';
import type { CommandRecord } from '../shell/ShellTracker.js';
import type { AttachedClient } from './Audience.js';

export type ExitReason = 'completed' | 'crashed' | 'closed';
export type InputSource = 'api' | 'mouse' | 'attach';

export interface ResolvedSpec {
  command: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  term: string;
  scrollback: number;
  labels: Record<string, string>;
  transcript: 'off' | 'redacted' | 'raw';
  name: string | undefined;
  remove_on_exit: boolean;
  /** Shell integration was asked for (the default); whether it is active depends on the program. */
  shell_integration: boolean;
}

export type SessionEvents = {
  /** Raw PTY bytes starting at stream offset `seq`, after the emulator has been fed them. */
  output: [chunk: Buffer, seq: number];
  /** The emulator has parsed output up to `seq`: the screen changed. */
  parsed: [seq: number];
  title: [title: string];
  resized: [cols: number, rows: number];
  /** The process ended and every byte it wrote is on the screen. */
  exit: [exit: PtyExit, reason: ExitReason];
  /** A notice for the people watching: text, never terminal bytes. */
  banner: [message: string];
  clientAttached: [client: AttachedClient];
  clientDetached: [client: AttachedClient];
  inputAccepted: [actor: Actor, source: InputSource, bytes: number];
  inputRejected: [actor: Actor, source: InputSource, code: string];
  leaseAcquired: [lease: Lease];
  leaseReleased: [lease: Lease, reason: ReleaseReason];
  inputPreempted: [lease: Lease, by: Actor];
  secretStarted: [actor: Actor, reason: string];
  /** The window closed; listeners that hold a picture of the screen should repaint. */
  secretEnded: [actor: Actor];
  /** Someone acted on the session in a way the audit trail keeps and no other event says with its actor. */
  audited: [actor: Actor, action: 'resized' | 'signalled' | 'session_ended' | 'session_removed', detail: Record<string, string | number>];
  /** Moderation changed: a person joined or left a moderated session, or a moderator acted; detail names a lease. */
  moderation: [change: ModerationChange, actor: Actor, detail: Record<string, string>];
  /** The shell's state changed (prompt, command, input needed): for waits. Not published while a window is open. */
  shellChanged: [];
  /** A command started (its C mark); held back while a secret-input window is open, like everything from output. */
  commandStarted: [command: CommandRecord];
  /** A command ended (its D mark); held back while a secret-input window is open. */
  commandFinished: [command: CommandRecord];
  /** The running command waits on the terminal (kernel evidence), or no longer does. */
  inputNeeded: [command: CommandRecord | undefined, needed: boolean];
  /** The session is being freed; listeners should let go. */
  disposed: [];
};

