/**
 * A daemon's refusal in the CLI's words. A validation error names the request field (`/cols`); the command's table
 * says which flag filled it, so `--cols must be at most 1000` is printed instead of `body/cols must be <= 1000`.
 */
import type { TermhostError } from '../client/errors.js';
import type { Command } from './commands/types.js';

/** Without importing the client module (a command that failed before loading it must not load it to say so). */
export function isServerError(err: unknown): err is TermhostError {
  return err instanceof Error && err.name === 'TermhostError';
}

/** What a validation error's constraint means, said of a flag. */
function rule(body: Record<string, unknown>): string | undefined {
  const limit = typeof body.limit === 'number' ? body.limit : undefined;
  switch (body.constraint) {
    case 'maximum':
      return `must be at most ${limit}`;
    case 'minimum':
      return `must be at least ${limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${limit}`;
    case 'exclusiveMinimum':
      return `must be more than ${limit}`;
    case 'maxLength':
      return `must be at most ${limit} characters long`;
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${limit} characters long`;
    case 'maxItems':
    case 'maxProperties':
      return `may be given at most ${limit} times`;
    case 'type':
      return body.type === 'integer' ? 'must be a whole number' : `must be a ${String(body.type)}`;
    case 'enum':
      return Array.isArray(body.allowed) ? `must be one of ${body.allowed.join(', ')}` : undefined;
    case 'pattern':
    case 'propertyNames':
      return 'has a character or form that is not allowed';
  }
  return undefined;
}

export function describeServerError(err: TermhostError, cmd: Command): string {
  const field = typeof err.body.field === 'string' ? err.body.field : undefined;
  if (err.code === 'invalid_request' && field !== undefined) {
    // The field itself, or the flag whose value it is part of (`/env/FOO` was filled by --env).
    const owner = (f: string) => field === f || field.startsWith(`${f}/`);
    const flag = cmd.flags.find((f) => f.field !== undefined && owner(f.field));
    const named = flag ? `--${flag.name}` : Object.entries(cmd.fields ?? {}).find(([f]) => owner(f))?.[1];
    const said = rule(err.body);
    if (named && said) return `${named} ${said}`;
  }
  return `${err.message}${err.code ? ` [${err.code}]` : ''}`;
}
