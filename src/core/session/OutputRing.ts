/**
 * The last N bytes of a session's output, addressed by absolute stream offset (seq). Clients that already hold
 * output up to some seq resume from here without duplicates or gaps; older positions are simply gone.
 */
export class OutputRing {
  private chunks: Buffer[] = [];
  private bytes = 0;
  /** Stream offset of the first byte still held. */
  private startSeq = 0;

  constructor(private readonly capacityBytes: number) {}

  /** Append a chunk that starts at the current end of the stream. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes - (this.chunks[0]?.length ?? 0) >= this.capacityBytes && this.chunks.length > 1) {
      const dropped = this.chunks.shift()!;
      this.bytes -= dropped.length;
      this.startSeq += dropped.length;
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
    for (const chunk of this.chunks) {
      const end = pos + chunk.length;
      if (end > seq) parts.push(seq > pos ? chunk.subarray(seq - pos) : chunk);
      pos = end;
    }
    return Buffer.concat(parts);
  }

  /** Forget everything and continue the stream at `seq`: no resume may reach back past this point. */
  resetAt(seq: number): void {
    this.chunks = [];
    this.bytes = 0;
    this.startSeq = seq;
  }

  clear(): void {
    this.chunks = [];
    this.bytes = 0;
  }
}
