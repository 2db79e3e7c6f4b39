/**
 * The one check of a session spec, whoever sends it: the HTTP route (after its schema), an MCP tool, or a program
 * embedding the runtime. Edge schemas read the same Bounds and refuse bad input first with their own wording; this
 * is what makes the runtime safe when an edge forgets one, or has none. Errors name the field in `field`, so an
 * edge can translate it into its own terms (a CLI flag, a tool argument).
 */
import { Bounds, ENV_NAME_PATTERN, LABEL_KEY_PATTERN, NAME_PATTERN, TERM_PATTERN } from '../../protocol/bounds.js';
import { TermError, fail, ok, type Result } from '../errors.js';
import type { SessionSpec } from './SessionManager.js';
import { checkGraceMs } from '../control/Moderation.js';

const TERM = new RegExp(TERM_PATTERN);
const LABEL_KEY = new RegExp(LABEL_KEY_PATTERN);
const ENV_NAME = new RegExp(ENV_NAME_PATTERN);
const NAME = new RegExp(NAME_PATTERN);
/** C0 and C1 controls and DEL: nothing a label value or name needs, and everything a log or a UI should not print. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/;

const bad = (field: string, message: string): Result<never> => fail(new TermError('invalid_request', `${field} ${message}`, { field }));

function isStringRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function dimension(field: string, v: unknown): Result<void> | undefined {
  if (v === undefined) return undefined;
  if (!Number.isInteger(v) || (v as number) < Bounds.dimensionMin || (v as number) > Bounds.dimensionMax) {
    return bad(field, `must be an integer from ${Bounds.dimensionMin} to ${Bounds.dimensionMax}`);
  }
  return undefined;
}

/** Checks a spec as it came from a caller (possibly untyped JSON); returns it unchanged when it is within bounds. */
export function validateSpec(spec: SessionSpec): Result<SessionSpec> {
  if (!isStringRecord(spec)) return bad('spec', 'must be an object');
  const { command, cwd, env, labels, term, scrollback, name } = spec;
  if (command !== undefined) {
    if (!Array.isArray(command)) return bad('command', 'must be an array of strings (argv)');
    if (command.length < 1 || command.length > Bounds.commandArgsMax) return bad('command', `must have 1 to ${Bounds.commandArgsMax} elements`);
    for (let i = 0; i < command.length; i++) {
      const a = command[i];
      if (typeof a !== 'string') return bad(`command[${i}]`, 'must be a string');
      if (a.length > Bounds.commandArgCharsMax) return bad(`command[${i}]`, `must be at most ${Bounds.commandArgCharsMax} characters`);
      if (a.includes('\u0000')) return bad(`command[${i}]`, 'must not contain NUL');
    }
  }
  if (cwd !== undefined && (typeof cwd !== 'string' || cwd.length > Bounds.cwdCharsMax || cwd.includes('\u0000'))) {
    return bad('cwd', `must be a path of at most ${Bounds.cwdCharsMax} characters`);
  }
  if (env !== undefined) {
    if (!isStringRecord(env)) return bad('env', 'must be an object of strings');
    const names = Object.keys(env);
    if (names.length > Bounds.envVarsMax) return bad('env', `must have at most ${Bounds.envVarsMax} variables`);
    for (const k of names) {
      if (k.length < 1 || k.length > Bounds.envNameCharsMax || !ENV_NAME.test(k)) {
        return bad('env', `name ${JSON.stringify(k.slice(0, 64))} must be 1 to ${Bounds.envNameCharsMax} characters without "=" or NUL`);
      }
      const v = env[k];
      if (typeof v !== 'string') return bad(`env.${k}`, 'must be a string');
      if (v.length > Bounds.envValueCharsMax) return bad(`env.${k}`, `must be at most ${Bounds.envValueCharsMax} characters`);
      if (v.includes('\u0000')) return bad(`env.${k}`, 'must not contain NUL');
    }
  }
  if (labels !== undefined) {
    if (!isStringRecord(labels)) return bad('labels', 'must be an object of strings');
    const keys = Object.keys(labels);
    if (keys.length > Bounds.labelsMax) return bad('labels', `must have at most ${Bounds.labelsMax} entries`);
    for (const k of keys) {
      if (!LABEL_KEY.test(k)) {
        return bad('labels', `key ${JSON.stringify(k.slice(0, 64))} must be 1 to ${Bounds.labelKeyCharsMax} letters, digits or . _ / -, starting with a letter or digit`);
      }
      const v = labels[k];
      if (typeof v !== 'string') return bad(`labels.${k}`, 'must be a string');
      if (v.length > Bounds.labelValueCharsMax) return bad(`labels.${k}`, `must be at most ${Bounds.labelValueCharsMax} characters`);
      if (CONTROLS.test(v)) return bad(`labels.${k}`, 'must not contain control characters');
    }
  }
  if (name !== undefined && (typeof name !== 'string' || !NAME.test(name as string))) {
    return bad('name', `must be 1 to ${Bounds.nameCharsMax} letters, digits or . _ -, starting with a letter`);
  }
  if (term !== undefined && (typeof term !== 'string' || !TERM.test(term as string))) return bad('term', 'must be 1 to 64 characters from A-Z a-z 0-9 . _ + -');
  if (scrollback !== undefined && (!Number.isInteger(scrollback) || (scrollback as number) < 0 || (scrollback as number) > Bounds.scrollbackLinesMax)) {
    return bad('scrollback', `must be an integer from 0 to ${Bounds.scrollbackLinesMax}`);
  }
  const dim = dimension('cols', spec.cols) ?? dimension('rows', spec.rows);
  if (dim) return dim as Result<never>;
  if (spec.input_policy !== undefined && spec.input_policy !== 'auto' && spec.input_policy !== 'lease') return bad('input_policy', 'must be "auto" or "lease"');
  if (spec.transcript !== undefined && !['off', 'redacted', 'raw'].includes(spec.transcript as string)) return bad('transcript', 'must be "off", "redacted" or "raw"');
  if (spec.secret_detect !== undefined && typeof spec.secret_detect !== 'boolean') return bad('secret_detect', 'must be true or false');
  if (spec.remove_on_exit !== undefined && typeof spec.remove_on_exit !== 'boolean') return bad('remove_on_exit', 'must be true or false');
  if (spec.shell_integration !== undefined && typeof spec.shell_integration !== 'boolean') return bad('shell_integration', 'must be true or false');
  if (spec.require_moderator !== undefined && typeof spec.require_moderator !== 'boolean') return bad('require_moderator', 'must be true or false');
  const grace = checkGraceMs(spec.moderator_grace_ms, 'moderator_grace_ms');
  if (!grace.ok) return grace as Result<never>;
  return ok(spec);
}

/** Resize bounds, shared by every edge that resizes. */
export function validateSize(cols: unknown, rows: unknown): Result<{ cols: number; rows: number }> {
  const dim = dimension('cols', cols) ?? dimension('rows', rows);
  if (dim) return dim as Result<never>;
  if (cols === undefined || rows === undefined) return bad(cols === undefined ? 'cols' : 'rows', 'is required');
  return ok({ cols: cols as number, rows: rows as number });
}
