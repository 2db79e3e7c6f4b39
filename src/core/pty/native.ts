/**
 * The loader for termhost's native addon (native/, built by node-gyp at install) and the path of the watchdog built
 * beside it. Loaded on first use, so a command that never touches a PTY never loads it.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Identifies one termhost session's processes; see native/procs.h for the rule. */
export interface SessionIdentity {
  /** The session's first process, once it exists. */
  leader?: number;
  /** The leader's start time (field 22 of /proc/PID/stat): a reused pid is never taken for the leader. */
  start?: number;
  /** The value of TERMHOST_SESSION_TAG in every session process's environment. */
  tag?: string;
  /** The session's cgroup v2 directory, when the machine lets us have one. */
  cgroup?: string;
}

export interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  sid: number;
  /** The foreground process group of the process's controlling terminal, or -1 when it has none. */
  tpgid: number;
  /** R, S, D, T, Z, ... */
  state: string;
  start: number;
}

export interface LocalFlags {
  lflag: number;
  /** Canonical (line) mode: the kernel edits a line and the program reads it whole. */
  icanon: boolean;
  echo: boolean;
  isig: boolean;
}

export interface NativeAddon {
  setCloexec(fd: number): void;
  cloexecFrom(lowFd: number, method?: 'close_range' | 'proc' | 'rlimit'): 'close_range' | 'proc' | 'rlimit';
  tcgetpgrp(fd: number): number;
  termiosLocalFlags(fd: number): LocalFlags;
  /** TIOCINQ: bytes waiting to be read on a terminal fd; on a PTY slave in canonical mode, complete lines only. */
  ttyInputBytes(fd: number): number;
  procStat(pid: number): ProcStat | null;
  sessionPids(session: SessionIdentity): number[];
  signalSession(session: SessionIdentity, signo: number): number;
  readonly LFLAG: { ICANON: number; ECHO: number; ECHONL: number; ISIG: number; IEXTEN: number };
}

/** The package root: dist/core/pty/ and src/core/pty/ are both three levels down. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RELEASE = path.join(ROOT, 'build', 'Release');

/** The watchdog executable (native/watchdog.c). */
export const WATCHDOG_PATH = path.join(RELEASE, 'termhost_watchdog');

let addon: NativeAddon | undefined;

export function native(): NativeAddon {
  if (addon) return addon;
  const file = path.join(RELEASE, 'termhost_native.node');
  try {
    addon = createRequire(import.meta.url)(file) as NativeAddon;
  } catch (err) {
    throw new Error(
      `termhost's native addon is missing or broken (${file}): run "npm rebuild termhost", or "npm run install" in a ` +
        `checkout (it needs make, a C compiler and python3): ${(err as Error).message}`,
    );
  }
  return addon;
}
