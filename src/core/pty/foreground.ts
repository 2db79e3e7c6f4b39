/**
 * Job-control signals go where Ctrl-C goes: to the terminal's foreground process group, which the kernel knows
 * (tcgetpgrp on the master answers for the slave). In a shell running `sleep 88` that is sleep's group, not the
 * shell's, which ignores SIGINT. When there is no foreground group (the shell's session has ended) the signal goes to
 * the group of the session's first process, as before.
 */
import fs from 'node:fs';
import type { Signalled } from '../../protocol/http.js';
import { native } from './native.js';
import type { Signal } from './PtyProcess.js';

/** A command line can be a megabyte; the answer says which program it was, not all of it. */
const COMMAND_MAX_CHARS = 256;

/** Signal the foreground group of the terminal on `masterFd`, or `fallbackPgid`'s; null when neither exists. */
export function signalForeground(masterFd: number, fallbackPgid: number, sig: Signal): Signalled | null {
  let pgid = fallbackPgid;
  try {
    const fg = native().tcgetpgrp(masterFd);
    if (fg > 0) pgid = fg;
  } catch {
    /* the master is closed or has no session: the fallback group */
  }
  for (const group of pgid === fallbackPgid ? [pgid] : [pgid, fallbackPgid]) {
    // Described before it is signalled: the signal may end it.
    const described = describeGroup(group, sig);
    try {
      process.kill(-group, `SIG${sig}`);
      return described;
    } catch {
      /* the group vanished meanwhile: try the next */
    }
  }
  return null;
}

function describeGroup(pgid: number, sig: Signal): Signalled {
  const stat = native().procStat(pgid);
  const leads = stat !== null && stat.pgrp === pgid && stat.state !== 'Z';
  return { pgid, leader_pid: leads ? pgid : null, command: leads ? commandLine(pgid) : null, signal: sig };
}

function commandLine(pid: number): string | null {
  let fd: number | undefined;
  try {
    fd = fs.openSync(`/proc/${pid}/cmdline`, 'r');
    const buf = Buffer.alloc(COMMAND_MAX_CHARS * 4);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    let end = n;
    while (end > 0 && buf[end - 1] === 0) end--;
    const line = buf.subarray(0, end).toString('utf8').split('\0').join(' ');
    return line.length > COMMAND_MAX_CHARS ? `${line.slice(0, COMMAND_MAX_CHARS - 1)}…` : line || null;
  } catch {
    return null; // exited while we looked
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
