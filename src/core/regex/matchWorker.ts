/**
 * The worker half of RegexMatcher: compiles (and caches) regexes and tests them against text sent from the main
 * thread. It holds nothing else, so killing it when a match runs past its deadline loses nothing but the cache.
 */
import { parentPort } from 'node:worker_threads';

export type MatchRequest = { id: number; source: string; flags: string; text: string };
export type MatchReply = { id: number; matched: boolean } | { id: number; error: string };

const CACHE_ENTRIES = 64;
const cache = new Map<string, RegExp>();

function compiled(source: string, flags: string): RegExp {
  const key = `${flags}/${source}`;
  let re = cache.get(key);
  if (!re) {
    re = new RegExp(source, flags);
    cache.set(key, re);
    if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  }
  re.lastIndex = 0;
  return re;
}

parentPort!.on('message', (m: MatchRequest) => {
  let reply: MatchReply;
  try {
    reply = { id: m.id, matched: compiled(m.source, m.flags).test(m.text) };
  } catch (err) {
    reply = { id: m.id, error: (err as Error).message };
  }
  parentPort!.postMessage(reply);
});
parentPort!.postMessage('ready');
