/** Replaying a session's stored transcript into the pane, page by page, with a bound on how much. */
import { api, enc } from './api.js';
import type { TranscriptPage } from './types.js';

/** Pages (each at most 500 chunks / 512 KiB) replayed into the pane; the .cast download has the rest. */
export const MAX_REPLAY_PAGES = 40;

export async function replayTranscript(id: string, write: (text: string) => unknown): Promise<{ chunks: number; truncated: boolean }> {
  let chunks = 0;
  let from = 0;
  for (let page = 0; page < MAX_REPLAY_PAGES; page++) {
    const p = await api<TranscriptPage>('GET', `/v1/sessions/${enc(id)}/transcript?from_seq=${from}`);
    for (const c of p.chunks) write(c.text);
    chunks += p.chunks.length;
    if (!p.has_more || p.last_seq === null) return { chunks, truncated: false };
    from = p.last_seq + 1;
  }
  return { chunks, truncated: true };
}
