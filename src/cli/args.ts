/**
 * Command-line flags in the style the reference CLI uses: `-cols 120` and `--cols=120` both work, boolean flags take
 * no value, repeatable flags collect into arrays, and `--` ends the flags.
 */
export type FlagType = 'boolean' | 'string' | 'multi';
export type FlagSpec = Record<string, FlagType>;

export interface Parsed {
  flags: Record<string, string | boolean | string[] | undefined>;
  positional: string[];
}

export class UsageError extends Error {}

/** Flags every command understands. */
export const GLOBAL_FLAGS: FlagSpec = { addr: 'string', token: 'string', 'state-dir': 'string', help: 'boolean', h: 'boolean' };

/**
 * `stopAfter`: once this many positional arguments are seen, everything after is positional too (so `send ID -v`
 * sends "-v", and `new bash -l` passes -l to bash).
 */
export function parseArgs(argv: string[], spec: FlagSpec, stopAfter = Infinity): Parsed {
  const all = { ...GLOBAL_FLAGS, ...spec };
  const flags: Parsed['flags'] = {};
  const positional: string[] = [];
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
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq >= 0 ? body.slice(0, eq) : body;
    const type = all[name];
    if (!type) throw new UsageError(`unknown flag ${arg}`);
    if (type === 'boolean') {
      if (eq >= 0) throw new UsageError(`flag -${name} takes no value`);
      flags[name] = true;
      continue;
    }
    let value: string | undefined = eq >= 0 ? body.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`flag -${name} needs a value`);
    if (type === 'multi') {
      const prev = (flags[name] as string[] | undefined) ?? [];
      flags[name] = [...prev, value];
    } else flags[name] = value;
  }
  return { flags, positional };
}

/** "k=v" strings -> a map; throws a UsageError naming the flag on a malformed pair. */
export function pairs(values: string[] | undefined, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values ?? []) {
    const eq = v.indexOf('=');
    if (eq <= 0) throw new UsageError(`-${flag} wants KEY=VALUE, got "${v}"`);
    out[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return out;
}

export function intFlag(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new UsageError(`-${flag} wants an integer, got "${String(value)}"`);
  return n;
}
