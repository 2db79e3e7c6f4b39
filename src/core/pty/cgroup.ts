/**
 * One cgroup v2 directory per session, where the machine lets us: `<daemon's cgroup>/termhost.<pid>/<tag>`. A cgroup
 * holds every process of the session whatever it does (setsid, double fork, a cleared environment), and
 * `cgroup.kill` ends them all at once, forks in flight included.
 *
 * The session's first process is born inside: the daemon enters the session's cgroup just before node-pty forks and
 * returns to its own right after, so no child can fork before it is placed (moving the child after the fork would
 * race with it). Both moves are one write each (tens of microseconds here).
 *
 * Where cgroup v2 is not mounted, not writable, or TERMHOST_CGROUP=off, there is no cgroup and the session rule falls
 * back to its other witnesses (native/procs.c). Nothing else changes.
 */
import fs from 'node:fs';
import path from 'node:path';

interface CgroupRoot {
  /** The daemon's own cgroup directory, where it returns after each spawn. */
  home: string;
  /** `<home>/termhost.<pid>`: this process's sessions. */
  dir: string;
}

let root: CgroupRoot | null | undefined;

/** Where the daemon's sessions get their cgroups, or null with no cgroups here. Decided once per process. */
export function cgroupRoot(): CgroupRoot | null {
  if (root === undefined) root = detect();
  return root;
}

/** Turn cgroups off for this process (a move that failed; never put sessions where the daemon cannot follow). */
export function disableCgroups(): void {
  root = null;
}

function detect(): CgroupRoot | null {
  if (process.env.TERMHOST_CGROUP === 'off') return null;
  try {
    const mount = cgroup2Mount();
    const own = fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n').find((l) => l.startsWith('0::'));
    if (!mount || !own) return null;
    const home = path.join(mount, own.slice(3));
    const dir = path.join(home, `termhost.${process.pid}`);
    if (/\s/.test(dir)) return null; // the watchdog's protocol separates fields by spaces
    removeStale(home);
    fs.mkdirSync(dir, { recursive: true });
    if (!fs.existsSync(path.join(dir, 'cgroup.kill'))) {
      fs.rmdirSync(dir); // a kernel before 5.14: no cgroup.kill, so a cgroup would not end a session at once
      return null;
    }
    // Prove the round trip once: enter our own directory and come back.
    fs.writeFileSync(path.join(dir, 'cgroup.procs'), String(process.pid));
    fs.writeFileSync(path.join(home, 'cgroup.procs'), String(process.pid));
    return { home, dir };
  } catch {
    return null; // not mounted, read-only, or not ours to write: the fallback witnesses do the work
  }
}

function cgroup2Mount(): string | undefined {
  for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [left, right] = line.split(' - ');
    if (right?.startsWith('cgroup2 ')) return left!.split(' ')[4];
  }
  return undefined;
}

/** Directories left by daemons that died with their watchdog: remove the empty ones. */
function removeStale(home: string): void {
  for (const name of fs.readdirSync(home)) {
    const m = /^termhost\.(\d{1,10})$/.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    const dir = path.join(home, name);
    try {
      for (const child of fs.readdirSync(dir, { withFileTypes: true })) if (child.isDirectory()) fs.rmdirSync(path.join(dir, child.name));
      fs.rmdirSync(dir);
    } catch {
      /* still holds processes, or not ours: leave it */
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A new session's directory, or undefined when there are no cgroups here. */
export function createSessionCgroup(tag: string): string | undefined {
  const r = cgroupRoot();
  if (!r) return undefined;
  const dir = path.join(r.dir, tag);
  try {
    fs.mkdirSync(dir, { recursive: true }); // recursive: the parent may have been removed by a watchdog meanwhile
    return dir;
  } catch {
    return undefined;
  }
}

/** Run `fn` (the fork) with the daemon inside `dir`; false from `placed` means the child is not in it. */
export function bornInside<T>(dir: string, fn: () => T): { value: T; placed: boolean } {
  const r = cgroupRoot();
  let placed = false;
  try {
    fs.writeFileSync(path.join(dir, 'cgroup.procs'), String(process.pid));
    placed = true;
  } catch {
    /* the fork happens outside; the session is then found by its other witnesses */
  }
  try {
    return { value: fn(), placed };
  } finally {
    if (placed) {
      try {
        fs.writeFileSync(path.join(r!.home, 'cgroup.procs'), String(process.pid));
      } catch {
        // Entering worked, so leaving should: if it ever does not, stop using cgroups (the kill path also refuses to
        // kill a cgroup that holds the daemon).
        disableCgroups();
      }
    }
  }
}

/** Remove an empty session cgroup; false while processes are still leaving it. */
export function removeSessionCgroup(dir: string): boolean {
  try {
    fs.rmdirSync(dir);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
