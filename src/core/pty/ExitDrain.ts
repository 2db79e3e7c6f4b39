/**
 * The exit drain: no output is lost when a child exits. On Linux, once the last slave fd closes, a read on the master
 * can report EIO while bytes are still on their way through the tty layer, and node-pty additionally destroys its
 * read socket 200 ms after the child exits (node-pty #72). So the host holds its own slave fd open, and the master
 * never sees EIO while the child's last bytes are in flight. Once the child is gone, the drain holds back the
 * socket's destruction until the end of the child's output has come out of the master, then closes the slave and
 * lets the socket go. Everything the child wrote has been delivered by then.
 *
 * How the end of the child's output is recognised: silence alone is not proof. On a loaded machine the kernel moves
 * bytes from the slave to the master in deferred work, which can lag by tens of milliseconds. So once the child has
 * exited, the host writes a random end marker into its own slave fd. The tty layer keeps order, so when the marker
 * comes out of the master every byte the child wrote has come out before it; the marker itself is cut from the
 * stream. Silence, confirmed by a direct read of the master, is only the fallback, for the rare case the marker
 * cannot be written (output stopped with ^S).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { Limits } from '../limits.js';
import { markCloexec } from './fds.js';

export class ExitDrain {
  private slaveFd: number | undefined;
  private lastDataAt = 0;
  private drainTimer: NodeJS.Timeout | undefined;
  private release: (() => void) | undefined;
  private disposed = false;
  /** The end marker written after the exit, and stream bytes held back because they may be its beginning. */
  private endMarker: Buffer | undefined;
  private heldBack: Buffer = Buffer.alloc(0);

  constructor(
    private readonly masterFd: number,
    ptsName: string,
    /** Where every byte read from the master goes, in order. */
    private readonly deliver: (chunk: Buffer) => void,
  ) {
    try {
      // Non-blocking: writing the end marker must never stall the daemon, even if the child stopped output (^S).
      this.slaveFd = fs.openSync(ptsName, fs.constants.O_RDWR | fs.constants.O_NOCTTY | fs.constants.O_NONBLOCK);
      markCloexec(this.slaveFd); // libuv opens with O_CLOEXEC already; this says so where it matters
    } catch {
      // Without our slave fd the exit path still works, only without the no-loss guarantee; this happens only if the
      // child already exited and the pts vanished, in which case there is nothing left in flight anyway.
      this.slaveFd = undefined;
    }
  }

  /** True once the child's exit has started the drain. */
  /** termhost's own fd on the slave while it holds one (for TIOCINQ); undefined once the drain closed it. */
  get slave(): number | undefined {
    return this.slaveFd;
  }

  get started(): boolean {
    return this.release !== undefined;
  }

  /** Every byte from the master, read by the socket or directly, goes through here, in the order it was read. */
  data(chunk: Buffer): void {
    this.lastDataAt = Date.now();
    if (this.endMarker) this.scanForMarker(chunk);
    else this.deliver(chunk);
  }

  /** The child has exited: call `release` (once) when all its output has been delivered, at most exitDrainMaxMs on. */
  start(release: () => void): void {
    if (this.release) return; // drain in progress
    this.release = release;
    this.awaitDrain(Date.now());
  }

  /** Stop draining and close our slave fd. Returns the pending release, if the drain had started. */
  dispose(): (() => void) | undefined {
    this.disposed = true;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.closeSlave();
    return this.release;
  }

  private closeSlave(): void {
    if (this.slaveFd === undefined) return;
    try {
      fs.closeSync(this.slaveFd);
    } catch {
      /* already closed */
    }
    this.slaveFd = undefined;
  }

  /**
   * After the exit: write the end marker and release the socket once it comes back out of the master, or, if it
   * cannot be written, once the master has been silent for the settle time and a direct read finds nothing. Either
   * way at most exitDrainMaxMs. The silence check runs in a timer and is confirmed in setImmediate, after the poll
   * phase, so bytes already waiting are read first.
   */
  private awaitDrain(startedAt: number): void {
    if (this.writeEndMarker()) {
      // The socket delivers the marker in the normal course; reading the master directly as well covers an event loop
      // too busy to get round to it.
      const poll = () => {
        this.drainTimer = undefined;
        setImmediate(() => {
          if (this.disposed || !this.endMarker) return; // finished meanwhile
          if (Date.now() - startedAt >= Limits.exitDrainMaxMs) return this.finish();
          this.readWaiting();
          if (this.endMarker) this.drainTimer = setTimeout(poll, Limits.exitDrainQuietMs);
        });
      };
      this.drainTimer = setTimeout(poll, Limits.exitDrainQuietMs);
      return;
    }
    const check = () => {
      this.drainTimer = undefined;
      setImmediate(() => {
        if (this.disposed) return;
        const quietFor = Date.now() - this.lastDataAt;
        const overdue = Date.now() - startedAt >= Limits.exitDrainMaxMs;
        if (quietFor < Limits.exitDrainQuietMs && !overdue) {
          this.drainTimer = setTimeout(check, Limits.exitDrainQuietMs - quietFor);
          return;
        }
        if (this.readWaiting() && !overdue) {
          this.drainTimer = setTimeout(check, Limits.exitDrainQuietMs);
          return;
        }
        this.finish();
      });
    };
    this.drainTimer = setTimeout(check, Limits.exitDrainQuietMs);
  }

  /** Upper-case hex: untouched by any output processing a program can set (OPOST, ONLCR, OLCUC). */
  private writeEndMarker(): boolean {
    if (this.slaveFd === undefined) return false;
    const marker = Buffer.from(`TERMHOST-END-${randomBytes(12).toString('hex').toUpperCase()}`, 'latin1');
    try {
      const written = fs.writeSync(this.slaveFd, marker);
      if (written < marker.length) {
        // Only part of it fits: look for that part, which is still unique enough at this length.
        if (written < 16) return false;
        this.endMarker = marker.subarray(0, written);
        return true;
      }
      this.endMarker = marker;
      return true;
    } catch {
      return false; // EAGAIN (output stopped) or the pts is gone: fall back to silence
    }
  }

  /** Forward drained bytes, holding back a possible start of the marker, and finish when the marker has come out. */
  private scanForMarker(data: Buffer): void {
    const marker = this.endMarker!;
    const buf = this.heldBack.length ? Buffer.concat([this.heldBack, data]) : data;
    const at = buf.indexOf(marker);
    if (at >= 0) {
      this.heldBack = Buffer.alloc(0);
      if (at > 0) this.deliver(buf.subarray(0, at));
      // Whatever follows came from a process still holding the terminal after the child exited.
      if (at + marker.length < buf.length) this.deliver(buf.subarray(at + marker.length));
      this.finish();
      return;
    }
    const keep = Math.min(buf.length, marker.length - 1);
    if (buf.length > keep) this.deliver(buf.subarray(0, buf.length - keep));
    this.heldBack = Buffer.from(buf.subarray(buf.length - keep));
  }

  private finish(): void {
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.drainTimer = undefined;
    if (this.disposed || !this.release) return;
    if (this.heldBack.length) {
      const rest = this.heldBack;
      this.heldBack = Buffer.alloc(0);
      this.deliver(rest);
    }
    this.endMarker = undefined;
    this.closeSlave();
    this.release();
  }

  /**
   * One read of the master, straight from the fd, delivered as the socket would have; true if there was anything.
   * The fd is non-blocking, so an empty master answers EAGAIN; Linux moves bytes still queued inside the tty layer to
   * the reader before it answers that. Reading here cannot reorder output: everything the socket read earlier was
   * delivered synchronously when it was read. One read only: a process still writing (a pipeline member that outlived
   * the child) must not hold the event loop; the caller waits and asks again.
   */
  private readWaiting(): boolean {
    const buf = Buffer.allocUnsafe(64 * 1024);
    let n = 0;
    try {
      n = fs.readSync(this.masterFd, buf, 0, buf.length, null);
    } catch {
      // EAGAIN: nothing left. EIO or EBADF: the master is gone, so there is nothing to read either.
      return false;
    }
    if (n <= 0) return false;
    this.data(buf.subarray(0, n));
    return true;
  }
}
