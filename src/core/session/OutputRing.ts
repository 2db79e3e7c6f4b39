/**
 * The last N bytes of a session's output, addressed by absolute stream offset (seq). Clients that already hold
 * output up to some seq resume from here without duplicates or gaps; older positions are simply gone.
 */
const EMPTY = Buffer.alloc(0);

export class OutputRing {
  /** Chunks from `head` on are held; dropped ones are skipped by index (shift() moved every chunk on every read). */
  private chunks: Buffer[] = [];
  private head = 0;
  private bytes = 0;
  /** Stream offset of the first byte still held. */
  private startSeq = 0;

  constructor(private readonly capacityBytes: number) {}

  /** Append a chunk that starts at the current end of the stream. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes - this.chunks[this.head]!.length >= this.capacityBytes && this.chunks.length - this.head > 1) {
      const dropped = this.chunks[this.head]!;
      this.chunks[this.head++] = EMPTY;
      this.bytes -= dropped.length;
      this.startSeq += dropped.length;
    }
    // Compact now and then, so the array does not grow without bound.
    if (this.head > 1024 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }

  get endSeq(): number {
    return this.startSeq + this.bytes;
  }

  get firstSeq(): number {
    return this.startSeq;
  }

  /** Bytes from `seq` to the end, or undefined when `seq` is older than what is held or beyond the end. */
  since(seq: number): Buffer | undefined {
    if (seq < this.startSeq || seq > this.endSeq) return undefined;
    const parts: Buffer[] = [];
    let pos = this.startSeq;
    for (let i = this.head; i < this.chunks.length; i++) {
      const chunk = this.chunks[i]!;
      const end = pos + chunk.length;
      if (end > seq) parts.push(seq > pos ? chunk.subarray(seq - pos) : chunk);
      pos = end;
    }
    return Buffer.concat(parts);
  }

  /** Forget everything and continue the stream at `seq`: no resume may reach back past this point. */
  resetAt(seq: number): void {
    this.chunks = [];
    this.head = 0;
    this.bytes = 0;
    this.startSeq = seq;
  }

  clear(): void {
    this.chunks = [];
    this.head = 0;
    this.bytes = 0;
  }
}
