/** Small pure helpers for what the page shows and reads: ages, command lines, lease holders. */

/** "42s", "5m", "3h 4m", "2d 1h" */
export function age(fromIso: string, now: number): string {
  const s = Math.max(0, Math.floor((now - Date.parse(fromIso)) / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/**
 * A command line typed into "New session" -> argv, the way a shell splits words: whitespace separates, single quotes
 * keep everything, double quotes keep everything but backslash escapes, a backslash outside quotes escapes one
 * character. No expansion of any kind. Returns an error for an unclosed quote.
 */
export function splitCommand(line: string): { ok: true; argv: string[] } | { ok: false; error: string } {
  const argv: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return { ok: false, error: 'unclosed single quote' };
      cur += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length && '"\\$`'.includes(line[j + 1]!)) j++;
        cur += line[j];
      }
      if (j >= line.length) return { ok: false, error: 'unclosed double quote' };
      i = j;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) argv.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) argv.push(cur);
  return { ok: true, argv };
}

/** argv -> one line for display, quoting words that need it. */
export function joinCommand(argv: readonly string[]): string {
  return argv.map((a) => (a === '' ? "''" : /[^A-Za-z0-9_./:=@%+,-]/.test(a) ? `'${a.replace(/'/g, `'\\''`)}'` : a)).join(' ');
}

export interface LeaseLike {
  actor: { name: string; kind: string };
  mode: 'shared' | 'exclusive';
  expires_at: string;
}

/** Who holds input, in a few words: the exclusive holder, else the shared holders, else nobody. */
export function inputHolder(leases: readonly LeaseLike[], now: number): string {
  const live = leases.filter((l) => Date.parse(l.expires_at) > now);
  const ex = live.find((l) => l.mode === 'exclusive');
  if (ex) return `${ex.actor.name} (${ex.actor.kind}, exclusive)`;
  if (live.length > 0) return `${[...new Set(live.map((l) => l.actor.name))].join(', ')} (shared)`;
  return 'free';
}
