/**
 * "What changed since the screen you served me at seq N", optionally as a long poll: when nothing changed yet, wait
 * up to `waitMs` for the first visible change instead of making the client poll. Re-checked on parsed output
 * (coalesced to one check per event-loop turn) and on exit; nothing polls.
 */
import type { ScreenChanges } from '../../protocol/http.js';
import { ok, type Result } from '../errors.js';
import { diffScreens } from '../snapshot/diff.js';
import type { Session } from './Session.js';

export interface ChangesOptions {
  /** Wait this long for a change when there is none yet; 0 answers at once. */
  waitMs?: number;
  highlights?: boolean;
  signal?: AbortSignal;
}

export async function changesSince(session: Session, sinceSeq: number, opts: ChangesOptions = {}): Promise<Result<ScreenChanges>> {
  const readable = session.readable();
  if (!readable.ok) return readable;
  await session.emulator.whenParsed();
  const before = session.history.get(sinceSeq);
  const first = answer(session, sinceSeq, opts);
  if (!first.ok || first.value.changed || !opts.waitMs || session.exited || opts.signal?.aborted) return first;

  await new Promise<void>((resolve) => {
    const cleanups: Array<() => void> = [];
    let queued = false;
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      for (const c of cleanups) c();
      resolve();
    };
    const check = () => {
      queued = false;
      if (session.secretActive || session.exited) return done();
      if (diffScreens(sinceSeq, before, session.peekScreen(false, opts.highlights ?? false)).changed) done();
    };
    const queue = () => {
      if (queued) return;
      queued = true;
      setImmediate(check);
    };
    const timer = setTimeout(done, opts.waitMs);
    cleanups.push(() => clearTimeout(timer));
    cleanups.push(session.events.on('parsed', queue));
    cleanups.push(session.events.on('exit', queue));
    cleanups.push(session.events.on('secretStarted', done));
    cleanups.push(session.events.on('resized', done));
    cleanups.push(session.events.on('disposed', done));
    if (opts.signal) {
      const signal = opts.signal;
      signal.addEventListener('abort', done, { once: true });
      cleanups.push(() => signal.removeEventListener('abort', done));
    }
  });
  await session.emulator.whenParsed();
  return answer(session, sinceSeq, opts);
}

function answer(session: Session, sinceSeq: number, opts: ChangesOptions): Result<ScreenChanges> {
  const readable = session.readable();
  if (!readable.ok) return readable;
  // Read `before` now: serving the current screen may replace an entry with the same seq.
  const before = session.history.get(sinceSeq);
  return ok(diffScreens(sinceSeq, before, session.screenNow(false, opts.highlights ?? false)));
}
