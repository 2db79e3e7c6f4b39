/**
 * What the kernel says about a session's terminal, read on demand: its foreground process group (tcgetpgrp on the
 * master), its line modes (tcgetattr on the master answers for the slave), whether a process of the foreground group
 * is blocked reading it (/proc/PID/syscall: the system call and its first argument, the fd, whose link names the
 * terminal), and how much typed input is still unread (TIOCINQ on termhost's own slave fd).
 *
 * Each reading costs a few system calls and /proc reads, never a spawned process. Callers decide when to read (after
 * output pauses, when a reader asks); nothing here runs on the PTY's read path.
 */
import fs from 'node:fs';
import { native } from './native.js';

/** How a process of the foreground group is waiting. */
export type TerminalWait =
  /** Blocked in read() on this terminal. */
  | 'read'
  /** Blocked in poll/select/epoll (on which fds /proc does not say). */
  | 'poll'
  /** Running, or blocked on something else (sleep, a child, the disk, the network). */
  | 'none'
  /** /proc would not say (a setuid program such as sudo, for a daemon that is not root). */
  | 'unknown';

export interface TerminalEvidence {
  /** The foreground process group; -1 when the terminal has none. */
  foreground: number;
  icanon: boolean;
  echo: boolean;
  wait: TerminalWait;
  /** Typed input the program has not read (complete lines only, in canonical mode); -1 when unknown. */
  unreadInput: number;
  /**
   * Output the program wrote that the daemon has not read yet (FIONREAD on the master); -1 when unknown. A program
   * that prints a prompt and then reads is blocked reading before its prompt reaches the screen.
   */
  unreadOutput: number;
}

/** System call numbers by architecture: reads, and waits on several fds. */
const SYSCALLS: Record<string, { reads: ReadonlySet<number>; polls: ReadonlySet<number> }> = {
  // read, pread64, readv; poll, select, epoll_wait, pselect6, ppoll, epoll_pwait, epoll_pwait2
  x64: { reads: new Set([0, 17, 19]), polls: new Set([7, 23, 232, 270, 271, 281, 441]) },
  // read, readv, pread64; epoll_pwait, pselect6, ppoll, epoll_pwait2
  arm64: { reads: new Set([63, 65, 67]), polls: new Set([22, 72, 73, 441]) },
};

/** Kernel functions a task sleeps in (wchan), for when /proc/PID/syscall may not be read. */
const READ_WCHANS = new Set(['n_tty_read', 'wait_woken']);
const POLL_WCHAN = /^(do_sys_poll|do_select|core_sys_select|ep_poll|poll_schedule_timeout)/;

/** Foreground processes looked at beyond the group's leader, at most (a pipeline is a handful). */
const GROUP_MEMBERS_MAX = 32;

function readProc(pid: number, file: string): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, 'latin1');
  } catch {
    return undefined;
  }
}

/** How `pid` waits; `terminals` are the names its fds may link to for our terminal. */
export function waitOf(pid: number, terminals: ReadonlySet<string>): TerminalWait {
  const calls = SYSCALLS[process.arch];
  const syscall = calls ? readProc(pid, 'syscall') : undefined;
  if (syscall !== undefined && calls) {
    const [nr, fdArg] = syscall.split(' ');
    const n = Number(nr);
    if (calls.reads.has(n)) {
      try {
        return terminals.has(fs.readlinkSync(`/proc/${pid}/fd/${parseInt(fdArg ?? '', 16)}`)) ? 'read' : 'none';
      } catch {
        return 'none'; // the fd closed, or the process exited, while we looked
      }
    }
    return calls.polls.has(n) ? 'poll' : 'none';
  }
  const wchan = readProc(pid, 'wchan');
  if (wchan === undefined || wchan === '0' || wchan === '') return readProc(pid, 'stat') === undefined ? 'none' : 'unknown';
  if (READ_WCHANS.has(wchan)) return 'read';
  return POLL_WCHAN.test(wchan) ? 'poll' : 'none';
}

export interface TerminalRefs {
  masterFd: number;
  /** termhost's own fd on the slave, while it holds one. */
  slaveFd: number | undefined;
  /** The slave's path, /dev/pts/N. */
  ptsName: string;
  /** Every process of the session, for the members of a foreground group whose leader is gone or not waiting. */
  sessionPids: () => number[];
}

/** The terminal's state now; undefined when the master is closed (the session ended). */
export function readTerminalEvidence(t: TerminalRefs): TerminalEvidence | undefined {
  const n = native();
  let foreground: number;
  let flags: { icanon: boolean; echo: boolean };
  try {
    foreground = n.tcgetpgrp(t.masterFd);
    flags = n.termiosLocalFlags(t.masterFd);
  } catch {
    return undefined;
  }
  let unreadInput = -1;
  if (t.slaveFd !== undefined) {
    try {
      unreadInput = n.ttyInputBytes(t.slaveFd);
    } catch {
      /* the slave was closed after the exit: unknown */
    }
  }
  let unreadOutput = -1;
  try {
    unreadOutput = n.ttyInputBytes(t.masterFd); // TIOCINQ is FIONREAD: on the master, what the program wrote
  } catch {
    /* unknown */
  }
  // A program that opened /dev/tty reads the same terminal (it is the controlling terminal of the foreground group).
  const terminals = new Set([t.ptsName, '/dev/tty']);
  let wait: TerminalWait = 'none';
  if (foreground > 0) {
    const leader = n.procStat(foreground);
    if (leader && leader.pgrp === foreground && leader.state !== 'Z') wait = waitOf(foreground, terminals);
    if (wait === 'none') {
      let looked = 0;
      for (const pid of t.sessionPids()) {
        if (pid === foreground || looked >= GROUP_MEMBERS_MAX) continue;
        const st = n.procStat(pid);
        if (!st || st.pgrp !== foreground || st.state === 'Z') continue;
        looked++;
        const w = waitOf(pid, terminals);
        if (w !== 'none') {
          wait = w;
          if (w === 'read') break;
        }
      }
    }
  }
  return { foreground, icanon: flags.icanon, echo: flags.echo, wait, unreadInput, unreadOutput };
}
