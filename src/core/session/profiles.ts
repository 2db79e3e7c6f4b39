/**
 * Command profiles: the operator names the programs sessions may run (`profiles` in the config file), and a caller
 * asks for one by name. With `restrict` (`--restrict-commands`), or for an actor whose token names its profiles, a
 * profile is the only way to start a session: the command is operator configuration, not caller input, so the daemon
 * offers no remote-exec surface. The one place that decides it, for every edge (HTTP, MCP, the embedded runtime).
 *
 * A request that names a profile may add only a size, labels (never one the profile sets to another value), a name
 * and remove_on_exit; everything else comes from the profile.
 */
import { TermError, fail, ok, type Result } from '../errors.js';
import type { Actor } from '../control/actor.js';
import type { SessionSpec } from './SessionManager.js';

export interface Profile {
  command: string[];
  cwd?: string;
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  labels?: Record<string, string>;
  transcript?: 'off' | 'redacted' | 'raw';
  /** Sessions of this profile require a person attached as driver for agents to type (control/Moderation.ts). */
  require_moderator?: boolean;
  /** Their grace period; default the runtime's. */
  moderator_grace_ms?: number;
}

export interface CommandPolicy {
  profiles: Readonly<Record<string, Profile>>;
  /** Only profiles may be started (`--restrict-commands`). */
  restrict: boolean;
}

/** What a request naming a profile may set itself. */
const CALLER_FIELDS = new Set(['profile', 'cols', 'rows', 'labels', 'name', 'remove_on_exit', 'require_moderator']);

/** The spec to start for this request and actor: the request itself, or its profile with the caller's additions. */
export function applyProfile(spec: SessionSpec, actor: Actor, policy: CommandPolicy): Result<SessionSpec> {
  const names = Object.keys(policy.profiles);
  const offered = names.length > 0 ? names.join(', ') : 'none are configured';
  const allowed = actor.profiles ?? (policy.restrict ? names : undefined);
  const refuse = (why: string, field?: string) =>
    fail<SessionSpec>(new TermError('command_not_allowed', `${why}; send {"profile": NAME} (profiles: ${allowed?.join(', ') || offered})`, { ...(field ? { field } : {}), profiles: allowed ?? names }));
  if (spec.profile === undefined) {
    if (actor.profiles) return refuse(`${actor.name} may start only the profiles its token names`);
    if (policy.restrict) return refuse('this daemon starts only its command profiles');
    return ok(spec);
  }
  const profile = Object.hasOwn(policy.profiles, spec.profile) ? policy.profiles[spec.profile] : undefined;
  if (!profile) return fail(new TermError('invalid_request', `no profile "${spec.profile}" (profiles: ${offered})`, { field: 'profile', profiles: names }));
  if (allowed && !allowed.includes(spec.profile)) return refuse(`profile "${spec.profile}" is not one ${actor.name} may start`, 'profile');
  for (const field of Object.keys(spec)) {
    if (CALLER_FIELDS.has(field) || spec[field as keyof SessionSpec] === undefined) continue;
    if (allowed) return refuse(`"${field}" comes from the profile, not the request`, field);
    return fail(new TermError('invalid_request', `"${field}" comes from the profile; a request naming a profile may give only cols, rows, labels, name, remove_on_exit and require_moderator`, { field }));
  }
  // A caller may ask for moderation a profile does not require, never turn off what it does.
  if (profile.require_moderator && spec.require_moderator === false) {
    return fail(new TermError(allowed ? 'command_not_allowed' : 'invalid_request', `profile "${spec.profile}" requires a moderator; leave require_moderator out`, { field: 'require_moderator' }));
  }
  const labels = { ...(spec.labels ?? {}) };
  for (const [k, v] of Object.entries(profile.labels ?? {})) {
    if (Object.hasOwn(labels, k) && labels[k] !== v) {
      return fail(new TermError(allowed ? 'command_not_allowed' : 'invalid_request', `label "${k}" is set by profile "${spec.profile}" to "${v}"`, { field: `labels.${k}` }));
    }
    labels[k] = v;
  }
  return ok({
    command: profile.command,
    ...(profile.cwd !== undefined ? { cwd: profile.cwd } : {}),
    ...(profile.env !== undefined ? { env: profile.env } : {}),
    ...(profile.transcript !== undefined ? { transcript: profile.transcript } : {}),
    cols: spec.cols ?? profile.cols,
    rows: spec.rows ?? profile.rows,
    labels,
    ...(spec.name !== undefined ? { name: spec.name } : {}),
    ...(spec.remove_on_exit !== undefined ? { remove_on_exit: spec.remove_on_exit } : {}),
    ...(profile.require_moderator || spec.require_moderator ? { require_moderator: true } : {}),
    ...(profile.moderator_grace_ms !== undefined ? { moderator_grace_ms: profile.moderator_grace_ms } : {}),
  });
}

/** The profiles this actor may start, and whether it may start nothing else. */
export function profilesFor(actor: Actor, policy: CommandPolicy): { profiles: Array<[string, Profile]>; restricted: boolean } {
  const all = Object.entries(policy.profiles);
  const only = actor.profiles;
  return { profiles: only ? all.filter(([n]) => only.includes(n)) : all, restricted: policy.restrict || only !== undefined };
}
