/**
 * `termhost serve --config FILE`: the daemon's settings in one JSON or TOML file (`.toml`), with one schema (CONFIG_SCHEMA below,
 * documented in docs/api.md "The config file"), checked at start. Every error names the file, the line and the field,
 * and the daemon does not start. Flags given on the command line win over the file.
 *
 * Paths in the file (tls.cert, tls.key, token_file, unix, state_dir, a profile's cwd) are taken relative to the file's
 * directory, so a config and its certificate can travel together.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { parse as parseToml, TomlError } from 'smol-toml';
import { validateSpec, type Profile } from './core/index.js';
import { Bounds, NAME_PATTERN } from './protocol/bounds.js';
import type { DaemonOptions } from './main.js';

/** A config file larger than this is refused: it is a page of settings, not data. */
export const CONFIG_BYTES_MAX = 1024 * 1024;

const PerMinute = Type.Integer({ minimum: 0, maximum: 1_000_000 });
/** A moderated session's grace, in seconds: the same bounds as a request's moderator_grace_ms. */
const GraceS = Type.Integer({ minimum: Bounds.moderatorGraceMsMin / 1000, maximum: Bounds.moderatorGraceMsMax / 1000 });
const ProfileSchema = Type.Object(
  {
    command: Type.Array(Type.String(), { minItems: 1 }),
    cwd: Type.Optional(Type.String()),
    env: Type.Optional(Type.Record(Type.String(), Type.String())),
    cols: Type.Optional(Type.Integer()),
    rows: Type.Optional(Type.Integer()),
    labels: Type.Optional(Type.Record(Type.String(), Type.String())),
    transcript: Type.Optional(Type.Union([Type.Literal('off'), Type.Literal('redacted'), Type.Literal('raw')])),
    require_moderator: Type.Optional(Type.Boolean()),
    moderator_grace_s: Type.Optional(GraceS),
  },
  { additionalProperties: false },
);

export const CONFIG_SCHEMA = Type.Object(
  {
    listen: Type.Optional(Type.String()),
    unix: Type.Optional(Type.String()),
    state_dir: Type.Optional(Type.String()),
    token_file: Type.Optional(Type.String()),
    allow_hosts: Type.Optional(Type.Array(Type.String())),
    allow_origins: Type.Optional(Type.Array(Type.String())),
    tls: Type.Optional(Type.Object({ cert: Type.String(), key: Type.String() }, { additionalProperties: false })),
    allow_plain_http: Type.Optional(Type.Boolean()),
    max_sessions: Type.Optional(Type.Integer({ minimum: 1 })),
    exited_ttl_s: Type.Optional(Type.Integer({ minimum: 0 })),
    require_leases: Type.Optional(Type.Boolean()),
    secret_detect: Type.Optional(Type.Boolean()),
    transcripts: Type.Optional(Type.Boolean()),
    transcript_retention_days: Type.Optional(Type.Integer({ minimum: -1 })),
    rate_limits: Type.Optional(
      Type.Object(
        { attach_tokens: Type.Optional(PerMinute), session_starts: Type.Optional(PerMinute), login_codes: Type.Optional(PerMinute), failed_auths: Type.Optional(PerMinute) },
        { additionalProperties: false },
      ),
    ),
    restrict_commands: Type.Optional(Type.Boolean()),
    moderator_grace_s: Type.Optional(GraceS),
    profiles: Type.Optional(Type.Record(Type.String({ pattern: NAME_PATTERN }), ProfileSchema, { maxProperties: Bounds.profilesMax })),
    log_level: Type.Optional(Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)))),
    log_format: Type.Optional(Type.Union([Type.Literal('text'), Type.Literal('json')])),
  },
  { additionalProperties: false },
);
export type ConfigFile = Static<typeof CONFIG_SCHEMA>;

/** What the file sets, as startDaemon options, plus the log settings `serve` applies. */
export interface LoadedConfig {
  options: DaemonOptions;
  logLevel?: string;
  logFormat?: string;
}

const validate = new Ajv({ allErrors: false, strict: false }).compile(CONFIG_SCHEMA);

/** Read and check a config file; throws one Error naming the file, the line and the field. */
export function loadConfig(file: string): LoadedConfig {
  const where = (line: number | undefined, field?: string) => `${file}${line ? `:${line}` : ''}${field ? `: ${field}` : ''}`;
  let text: string;
  try {
    if (fs.statSync(file).size > CONFIG_BYTES_MAX) throw new Error(`larger than ${CONFIG_BYTES_MAX} bytes`);
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`--config ${where(undefined)}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  // TOML by its extension, JSON otherwise: the same settings, the same checks.
  const toml = file.toLowerCase().endsWith('.toml');
  let json: unknown;
  try {
    // TOML's tables come back without a prototype: as plain JSON values they are the same as a JSON file's.
    json = toml ? JSON.parse(JSON.stringify(parseToml(text))) : JSON.parse(text);
  } catch (err) {
    if (err instanceof TomlError) throw new Error(`--config ${where(err.line)}: not valid TOML (${err.message.split('\n')[0]})`);
    const at = /position (\d+)/.exec((err as Error).message);
    throw new Error(`--config ${where(at ? lineAt(text, Number(at[1])) : undefined)}: not valid JSON (${(err as Error).message})`);
  }
  const locate = toml ? locateToml : locateJson;
  if (!validate(json)) {
    const e = validate.errors![0]!;
    const segments = e.instancePath.split('/').slice(1).map((s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const extra = e.keyword === 'additionalProperties' ? (e.params as { additionalProperty: string }).additionalProperty : undefined;
    const field = [...segments, ...(extra ? [extra] : [])].join('.') || '(the top level)';
    const why = extra ? 'is not a setting termhost knows (see docs/api.md, The config file)' : e.message;
    throw new Error(`--config ${where(locate(text, [...segments, ...(extra ? [extra] : [])]), field)} ${why}`);
  }
  const c = json as ConfigFile;
  const dir = path.dirname(path.resolve(file));
  const rel = (p: string | undefined) => (p === undefined ? undefined : path.resolve(dir, p));
  const profiles: Record<string, Profile> = {};
  for (const [name, p] of Object.entries(c.profiles ?? {})) {
    const { moderator_grace_s: graceS, ...rest } = p;
    const profile: Profile = { ...rest, ...(p.cwd !== undefined ? { cwd: rel(p.cwd) } : {}), ...(graceS !== undefined ? { moderator_grace_ms: graceS * 1000 } : {}) };
    // The same bounds as a request's: a profile that could not be started is refused now, not at its first use.
    const checked = validateSpec(profile);
    if (!checked.ok) {
      const sub = String(checked.error.extra.field ?? '');
      throw new Error(`--config ${where(locate(text, ['profiles', name, sub.split(/[.[]/)[0]!]), `profiles.${name}.${sub}`)} ${checked.error.message}`);
    }
    profiles[name] = profile;
  }
  const r = c.rate_limits;
  return {
    logLevel: c.log_level,
    logFormat: c.log_format,
    options: strip({
      listen: c.listen,
      unix: rel(c.unix),
      stateDir: rel(c.state_dir),
      tokenFile: rel(c.token_file),
      allowedHosts: c.allow_hosts,
      allowedOrigins: c.allow_origins,
      tls: c.tls && { certFile: rel(c.tls.cert)!, keyFile: rel(c.tls.key)! },
      allowPlainHttp: c.allow_plain_http,
      maxSessions: c.max_sessions,
      exitedTtlMs: c.exited_ttl_s === undefined ? undefined : c.exited_ttl_s * 1000,
      requireLeases: c.require_leases,
      secretDetect: c.secret_detect,
      transcripts: c.transcripts,
      transcriptRetentionDays: c.transcript_retention_days,
      rateLimits: r && strip({ attachTokens: r.attach_tokens, sessionStarts: r.session_starts, loginCodes: r.login_codes, failedAuths: r.failed_auths }),
      restrictCommands: c.restrict_commands,
      moderatorGraceMs: c.moderator_grace_s === undefined ? undefined : c.moderator_grace_s * 1000,
      profiles: c.profiles && profiles,
    }),
  };
}

/** The 1-based line of a character offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The line where a field is written: each key of the path searched for after the one before (a plain text scan). */
function locateJson(text: string, segments: string[]): number | undefined {
  let at = 0;
  let found = -1;
  for (const seg of segments) {
    if (/^\d+$/.test(seg) || seg === '') break; // an array index: the array's own line is near enough
    const next = text.indexOf(JSON.stringify(seg), at);
    if (next < 0) break;
    found = next;
    at = next + seg.length + 2;
  }
  return found < 0 ? undefined : lineAt(text, found);
}

/** The same for TOML, where a key is written bare (`cwd = ...`, `[profiles.py]`): its first use after the one before. */
function locateToml(text: string, segments: string[]): number | undefined {
  let at = 0;
  let found = -1;
  for (const seg of segments) {
    if (/^\d+$/.test(seg) || seg === '') break;
    const next = text.indexOf(seg, at);
    if (next < 0) break;
    found = next;
    at = next + seg.length;
  }
  return found < 0 ? undefined : lineAt(text, found);
}

function strip<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
