/**
 * Every size and time the runtime itself bounds, with the unit in the name. Bounds on what a request may ask for
 * (dimensions 1..1000, waits up to 60 s, scrollback up to 100,000 lines) live in the request schemas (protocol/).
 */
export const Limits = {
  /** Output kept per session for clients that resume by sequence number. */
  replayRingBytes: 512 * 1024,
  /** Input queued for a child that stops reading; past this, input is refused with 409 input_queue_full. */
  inputQueueBytes: 1024 * 1024,
  /** Sessions one runtime will run at once; exited sessions do not count. Configurable per runtime. */
  maxSessions: 64,
  /** How long an exited session stays readable (final screen, exit code) before it is freed; `--exited-ttl`. */
  exitedSessionTtlMs: 60 * 60 * 1000,
  /** Exited sessions kept at most; past this the oldest are freed early. */
  exitedSessionsMax: 256,
  /** Leases held on one session at once (each shared lease counts); past this, 409 lease_limit. */
  maxLeasesPerSession: 64,
  /** Time between the polite signal of a kill and SIGKILL to every process of the session still alive. */
  killEscalationMs: 3000,
  /**
   * After the child exits, output counts as fully drained once the PTY has been silent this long and a direct read of
   * the master finds nothing left (the read is what guarantees the child's own output; the silence is for stragglers).
   */
  exitDrainQuietMs: 10,
  /** Upper bound on the drain after exit, for a background process that keeps the PTY busy. */
  exitDrainMaxMs: 2000,
  /** Scrollback lines kept by the emulator when a spec does not say. */
  defaultScrollbackLines: 1000,
  /** Commands remembered per session (GET .../commands lists them). */
  commandsKept: 100,
  /**
   * Output of a running command kept as text once it scrolls out of the scrollback, in characters; past this the
   * middle is left out (the end is still in the scrollback) and the output says so.
   */
  commandSpoolChars: 32 * 1024 * 1024,
  /** Whole outputs of ended commands kept per session, in bytes; past this the oldest outputs are let go. */
  commandOutputKeptBytes: 64 * 1024 * 1024,
} as const;
