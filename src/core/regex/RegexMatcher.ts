/**
 * Regexes that callers give (wait conditions) never run on the event loop. A backtracking pattern such as
 * `^(a+)+$` against a line of 30 `a`s takes seconds, and V8's linear-time engine is no cure (it is linear in the text
 * times the pattern, which for a 4 KiB pattern against a large screen is also seconds). So matches run in one worker
 * thread, one at a time in arrival order, each with a hard deadline: a match that runs past it has its worker
 * terminated (V8 interrupts a running regex) and fails with `invalid_regex`; the next match gets a fresh worker.
 * The deadline is CPU time of the worker's thread where Linux tells it, so a loaded machine does not stop trivial
 * matches that merely waited for a CPU.
 * The event loop only ever posts a string and waits for a boolean.
 */
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { TermError, fail, ok, type Result } from '../errors.js';

type MatchRequest = { id: number; source: string; flags: string; text: string };
type MatchReply = { id: number; matched: boolean } | { id: number; error: string } | { ready: true; tid: number };

/**
 * CPU time a thread of this process has had, in ms, or undefined where it cannot be read. A deadline counts this, not
 * the clock: on a loaded machine a trivial match can wait for a CPU far longer than it runs, and must not be stopped
 * for that.
 */
function threadCpuMs(tid: number): number | undefined {
  if (!tid) return undefined;
  try {
    return Number(fs.readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/** However starved the machine, a match is stopped after this much wall time (the wait's own timeout may be longer). */
export const REGEX_MATCH_WALL_MAX_MS = 10_000;

/**
 * The worker: compiles (and caches) regexes and tests them against the text it is sent. Plain JavaScript passed as
 * source, so it starts in milliseconds with no loader and no file to find, whether termhost runs from dist/ or from
 * TypeScript sources. It holds nothing else, so killing it mid-match loses only the cache.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const CACHE_ENTRIES = 64;
const cache = new Map();
parentPort.on('message', (m) => {
  let reply;
  try {
    const key = m.flags + '/' + m.source;
    let re = cache.get(key);
    if (!re) {
      re = new RegExp(m.source, m.flags);
      cache.set(key, re);
      if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value);
    }
    re.lastIndex = 0;
    reply = { id: m.id, matched: re.test(m.text) };
  } catch (err) {
    reply = { id: m.id, error: String(err && err.message) };
  }
  parentPort.postMessage(reply);
});
// Its thread id, so the daemon can read how much CPU a match has really had (/proc/self/task/TID/schedstat).
let tid = 0;
try { tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()); } catch { /* not Linux */ }
parentPort.postMessage({ ready: true, tid });
`;

/** Longest one match may run before its worker is killed. */
export const REGEX_MATCH_DEADLINE_MS = 250;
/** Matches waiting for the worker; past this a wait's check is refused rather than queued without bound. */
export const REGEX_QUEUE_MAX = 1024;

type Job = MatchRequest & { resolve: (r: Result<boolean>) => void };

export class RegexMatcher {
  private worker: Worker | undefined;
  /** Set once the worker has loaded: the deadline counts matching time, not start-up time. */
  private ready = false;
  /** The worker's thread id, for its CPU time. */
  private tid = 0;
  private readonly queue: Job[] = [];
  private running: Job | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private nextId = 1;

  constructor(private readonly deadlineMs: number = REGEX_MATCH_DEADLINE_MS) {}

  /** Does `text` match? Compile errors were caught by the caller already; a slow match is an error value. */
  match(source: string, flags: string, text: string): Promise<Result<boolean>> {
    if (this.queue.length >= REGEX_QUEUE_MAX) {
      return Promise.resolve(fail(new TermError('connection_limit', `${REGEX_QUEUE_MAX} regex checks are queued; try again later`, { limit: 'regex_checks', max: REGEX_QUEUE_MAX }, true)));
    }
    return new Promise((resolve) => {
      this.queue.push({ id: this.nextId++, source, flags, text, resolve });
      this.pump();
    });
  }

  /** Stop the worker (while idle it is unref'd, so it never keeps a process alive by itself). */
  close(): void {
    clearTimeout(this.deadline);
    void this.worker?.terminate();
    this.worker = undefined;
    this.ready = false;
    for (const j of this.queue.splice(0)) j.resolve(fail(new TermError('internal', 'the regex matcher was closed')));
    this.running?.resolve(fail(new TermError('internal', 'the regex matcher was closed')));
    this.running = undefined;
  }

  private pump(): void {
    if (this.running) return;
    if (this.queue.length === 0) {
      // Idle: the worker must not keep a process alive by itself.
      this.worker?.unref();
      return;
    }
    const worker = this.ensureWorker();
    worker.ref(); // a caller is waiting on it
    if (!this.ready) return; // pumped again when the worker says it is ready
    const job = (this.running = this.queue.shift()!);
    const startedAt = Date.now();
    const cpuAtStart = threadCpuMs(this.tid);
    const check = () => {
      const cpu = cpuAtStart === undefined ? undefined : threadCpuMs(this.tid);
      const ran = cpu === undefined ? Date.now() - startedAt : cpu - cpuAtStart!;
      if (ran < this.deadlineMs && Date.now() - startedAt < REGEX_MATCH_WALL_MAX_MS) {
        // Waiting for a CPU, not matching: look again once it could have used up its time.
        this.deadline = setTimeout(check, Math.max(10, this.deadlineMs - ran));
        return;
      }
      // The worker is stuck in this match: kill it; the next job starts a fresh one.
      this.worker = undefined;
      this.ready = false;
      void worker.terminate();
      this.finish(job, fail(new TermError('invalid_regex', `the regex ran for more than ${this.deadlineMs} ms against the screen and was stopped; simplify it (nested quantifiers such as (a+)+ backtrack)`, { deadline_ms: this.deadlineMs })));
    };
    this.deadline = setTimeout(check, this.deadlineMs);
    worker.postMessage({ id: job.id, source: job.source, flags: job.flags, text: job.text } satisfies MatchRequest);
  }

  private finish(job: Job, r: Result<boolean>): void {
    if (this.running !== job) return;
    clearTimeout(this.deadline);
    this.running = undefined;
    job.resolve(r);
    this.pump();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    // A small heap: the worker holds only a regex cache and the text of one screen at a time.
    const worker = new Worker(WORKER_SOURCE, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 64 } });
    worker.on('message', (m: MatchReply) => {
      if ('ready' in m) {
        if (this.worker === worker) {
          this.ready = true;
          this.tid = m.tid;
          this.pump();
        }
        return;
      }
      const job = this.running;
      if (!job || job.id !== m.id) return;
      this.finish(job, 'error' in m ? fail(new TermError('invalid_regex', `invalid regex: ${m.error}`)) : ok(m.matched));
    });
    worker.on('error', (err) => {
      if (this.worker !== worker) return;
      const started = this.ready;
      this.worker = undefined;
      this.ready = false;
      // A crash mid-match fails that match by its deadline, and the next one starts a fresh worker. A worker that
      // cannot even start would fail the same way again: refuse what is queued instead of retrying for ever.
      if (!started) for (const j of this.queue.splice(0)) j.resolve(fail(new TermError('internal', `the regex matcher could not start: ${err.message}`)));
    });
    this.worker = worker;
    this.ready = false;
    return worker;
  }
}

/** One matcher per process: the worker is a thread, not a resource any one runtime owns. */
export const regexMatcher = new RegexMatcher();
