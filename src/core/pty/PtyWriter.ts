/**
 * The single, bounded write queue in front of a PTY master.
 *
 * node-pty's own writer queues without a bound and retries EAGAIN with setImmediate, which spins a core while a child
 * is not reading. This queue writes the master fd itself: each entry is one caller's bytes and is written to the end
 * before the next entry starts, so two writers never interleave mid-sequence. EAGAIN backs off on a timer, and the
 * byte bound turns a child that never reads into a clear refusal instead of unbounded memory.
 */
import fs from 'node:fs';

/** First retry delay after EAGAIN; doubles up to the maximum while the child keeps not reading. */
const RETRY_START_MS = 1;
const RETRY_MAX_MS = 50;

export class PtyWriter {
  private readonly queue: Buffer[] = [];
  private offset = 0;
  private queued = 0;
  private writing = false;
  private retryMs = RETRY_START_MS;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly fd: number,
    private readonly maxBytes: number,
  ) {}

  /** Bytes accepted but not yet taken by the kernel. */
  get queuedBytes(): number {
    return this.queued;
  }

  /** Queue one contiguous write. Returns false, queuing nothing, when it would pass the bound or the PTY is gone. */
  enqueue(bytes: Buffer): boolean {
    if (this.closed) return false;
    if (bytes.length === 0) return true;
    if (this.queued + bytes.length > this.maxBytes) return false;
    if (this.queue.length === 0 && !this.writing && this.timer === undefined) {
      // Fast path for the usual keystroke: the fd is non-blocking, so a direct write either lands in the kernel now
      // (saving a trip through the thread pool, which is most of the keystroke-to-echo latency) or says EAGAIN.
      let written = 0;
      try {
        written = fs.writeSync(this.fd, bytes);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EAGAIN') {
          // EIO/EBADF: the PTY is gone (child exited or the session was disposed).
          this.close();
          return false;
        }
      }
      if (written >= bytes.length) return true;
      bytes = bytes.subarray(written);
    }
    this.queue.push(bytes);
    this.queued += bytes.length;
    if (!this.writing && this.timer === undefined) this.pump();
    return true;
  }

  /** Drop whatever is queued; later writes are refused. */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.queue.length = 0;
    this.queued = 0;
  }

  private pump(): void {
    const head = this.queue[0];
    if (this.closed || head === undefined) return;
    this.writing = true;
    fs.write(this.fd, head, this.offset, head.length - this.offset, null, (err, written) => {
      this.writing = false;
      if (this.closed) return;
      if (err) {
        if (err.code === 'EAGAIN') {
          this.timer = setTimeout(() => {
            this.timer = undefined;
            this.pump();
          }, this.retryMs);
          this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
          return;
        }
        // EIO/EBADF: the PTY is gone (child exited or the session was disposed); nothing queued can be delivered.
        this.close();
        return;
      }
      this.retryMs = RETRY_START_MS;
      this.offset += written;
      this.queued -= written;
      if (this.offset >= head.length) {
        this.queue.shift();
        this.offset = 0;
      }
      this.pump();
    });
  }
}
