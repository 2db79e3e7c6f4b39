/**
 * fd hygiene: a program the daemon starts gets its own terminal as 0, 1 and 2 and nothing else. node-pty 1.1.0 forks
 * without closing anything and leaves its masters inheritable (microsoft/node-pty #657), so every session would hold
 * every earlier session's master, and whatever the daemon itself inherited. Two measures, both needed:
 *   - each master (and the slave fd the daemon keeps for the exit drain) is marked close-on-exec as soon as it exists,
 *     so no later exec anywhere in the daemon carries it, child_process spawns included;
 *   - before every spawn, every fd >= 3 is marked close-on-exec (one close_range call on Linux >= 5.11), which covers
 *     the fds the daemon inherited and any a library opened without O_CLOEXEC.
 * Marking, not closing: the daemon keeps using its fds; only the programs it execs do not get them.
 */
import { native } from './native.js';

/** Mark one fd close-on-exec. */
export function markCloexec(fd: number): void {
  native().setCloexec(fd);
}

/** Mark every fd >= 3 of this process close-on-exec; call before anything is spawned. */
export function sealInheritedFds(): void {
  native().cloexecFrom(3);
}
