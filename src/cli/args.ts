/**
 * Command-line parsing driven by each command's flag table (commands/types.ts): the same table gives help and
 * completion. Long flags are `--cols` (`--cols=120` too); the single-dash spelling `-cols` is kept as an alias, and a
 * flag may have a one-letter short form (`-n 50`). `--` ends the flags. A flag that is not in the table is named,
 * with the closest one that is.
 */
import type { Command, Flag } from './commands/types.js';

export type FlagValue = string | boolean | number | string[];

export interface Parsed {
  flags: Record<string, FlagValue | undefined>;
  positional: string[];
}

/** A mistake in how the command was called: printed with the usage line, exit status 2. */
export class UsageError extends Error {}

/** Flags every client command takes; they may also come before the command (`termhost --addr X ls`). */
export const GLOBAL_FLAGS: Flag[] = [
  {
    name: 'addr',
    aliases: ['url'],
    kind: 'string',
    value: 'ADDR',
    help: 'the daemon: HOST:PORT, https://HOST:PORT (TLS) or unix:/PATH; --url is the same flag',
    default: '$TERMHOST_ADDR or $TERMHOST_URL, else the daemon in the state dir (daemon.json)',
  },
  { name: 'token', kind: 'string', value: 'T', help: 'bearer token', default: '$TERMHOST_TOKEN, else the token file of that daemon' },
  {
    name: 'ca',
    kind: 'string',
    value: 'FILE',
    help: "PEM certificates to trust for an https:// daemon, instead of Node's store: its CA, or its own certificate",
    default: "$TERMHOST_CA, else the certificate daemon.json names, else Node's store (with NODE_EXTRA_CA_CERTS)",
    complete: 'file',
  },
  { name: 'state-dir', kind: 'string', value: 'DIR', help: 'where the daemon keeps its state', default: '$XDG_STATE_HOME/termhost', complete: 'dir' },
  { name: 'help', short: 'h', kind: 'boolean', help: 'show this help' },
];

/** Edit distance, for "did you mean"; inputs here are short words (command and flag names). */
export function distance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Math.max(a.length, b.length);
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** The candidate closest to `word`, when it is close enough to be a likely typo (or `word` is a prefix of it). */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = c.startsWith(word) && word.length >= 2 ? 0.5 : distance(word, c);
    if (d < bestD) [best, bestD] = [c, d];
  }
  return best !== undefined && bestD <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}

/** A command's own flags and the global ones it takes: all of them for a client command, only --help otherwise. */
export function flagsOf(cmd: Pick<Command, 'flags' | 'client'>): Flag[] {
  return [...cmd.flags, ...(cmd.client === false ? GLOBAL_FLAGS.filter((f) => f.name === 'help') : GLOBAL_FLAGS)];
}

function find(flags: Flag[], spelled: string, dashes: number): Flag | undefined {
  if (dashes === 1 && spelled.length === 1) return flags.find((f) => f.short === spelled);
  return flags.find((f) => f.name === spelled) ?? flags.find((f) => f.aliases?.includes(spelled));
}

/** One flag's value from its text: ints are checked against their bounds, choices against the list. */
function convert(f: Flag, raw: string): string | number {
  if (f.kind === 'int') {
    const n = /^-?\d{1,15}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(n)) throw new UsageError(`--${f.name} wants a whole number, got "${raw}"`);
    if (f.min !== undefined && n < f.min) throw new UsageError(`--${f.name} must be at least ${f.min}`);
    if (f.max !== undefined && n > f.max) throw new UsageError(`--${f.name} must be at most ${f.max}`);
    return n;
  }
  if (f.choices && !f.choices.includes(raw)) {
    const near = closest(raw, f.choices);
    throw new UsageError(`--${f.name} must be one of ${f.choices.join(', ')}${near ? ` (did you mean ${near}?)` : ''}, got "${raw}"`);
  }
  return raw;
}

/**
 * Parse argv against a command's table (plus the global flags). With `stopAfter`, once that many positional arguments
 * are seen everything after is positional too: `send ID -v` sends "-v", and `new bash -l` passes -l to bash.
 */
export function parseArgs(argv: string[], cmd: Pick<Command, 'flags' | 'client' | 'stopAfter'>, into: Parsed = { flags: {}, positional: [] }): Parsed {
  const flags = flagsOf(cmd);
  const stopAfter = cmd.stopAfter ?? Infinity;
  const { positional } = into;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const looksLikeFlag = arg.startsWith('-') && arg !== '-';
    if (positional.length >= stopAfter && (positional.length > 0 || !looksLikeFlag)) {
      positional.push(...argv.slice(i));
      break;
    }
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!looksLikeFlag) {
      positional.push(arg);
      continue;
    }
    const dashes = arg.startsWith('--') ? 2 : 1;
    const body = arg.slice(dashes);
    const eq = body.indexOf('=');
    const spelled = eq >= 0 ? body.slice(0, eq) : body;
    const f = find(flags, spelled, dashes);
    if (!f) {
      const names = flags.flatMap((x) => [x.name, ...(x.aliases ?? [])]);
      const near = closest(spelled, names);
      throw new UsageError(`unknown flag ${eq >= 0 ? arg.slice(0, dashes + eq) : arg}${near ? ` (did you mean --${near}?)` : ''}`);
    }
    if (f.kind === 'boolean') {
      if (eq >= 0) throw new UsageError(`--${f.name} takes no value`);
      into.flags[f.name] = true;
      continue;
    }
    const raw = eq >= 0 ? body.slice(eq + 1) : argv[++i];
    if (raw === undefined) throw new UsageError(`--${f.name} needs a value${f.value ? ` (${f.value})` : ''}`);
    const value = convert(f, raw);
    if (f.kind === 'list') into.flags[f.name] = [...((into.flags[f.name] as string[] | undefined) ?? []), String(value)];
    else into.flags[f.name] = value;
  }
  return into;
}

/** "k=v" strings -> a map; throws a UsageError naming the flag on a malformed pair. */
export function pairs(values: string[] | undefined, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values ?? []) {
    const eq = v.indexOf('=');
    if (eq <= 0) throw new UsageError(`--${flag} wants KEY=VALUE, got "${v}"`);
    out[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return out;
}

/** Refuse positional arguments past the first `n` the command takes. */
export function noMoreArgs(parsed: Parsed, n: number): void {
  if (parsed.positional.length > n) throw new UsageError(`unexpected argument "${parsed.positional[n]}"`);
}

/** The positional argument at `i`, or a usage error saying what is missing. */
export function needArg(parsed: Parsed, i: number, what: string): string {
  const v = parsed.positional[i];
  if (v === undefined || v === '') throw new UsageError(`missing ${what}`);
  return v;
}
