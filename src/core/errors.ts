/**
 * The one error type of termhost. Every failure a client can see carries a stable `code`; only the server maps codes
 * to HTTP statuses (server/errors.ts). Core code returns these as values for expected failures and throws them only
 * where a caller cannot reasonably go on.
 */

export type ErrorCode =
  | 'invalid_request'
  | 'invalid_json'
  | 'invalid_key'
  | 'invalid_input'
  | 'invalid_mouse'
  | 'invalid_regex'
  | 'command_not_found'
  | 'cwd_not_found'
  | 'spawn_failed'
  | 'session_not_found'
  | 'session_exited'
  | 'session_limit'
  | 'connection_limit'
  | 'lease_limit'
  | 'token_limit'
  | 'forbidden'
  | 'lease_required'
  | 'lease_held'
  | 'lease_preempted'
  | 'lease_not_found'
  | 'secret_input_active'
  | 'secret_input_settling'
  | 'token_exists'
  | 'token_not_found'
  | 'input_queue_full'
  | 'mouse_not_enabled'
  | 'mouse_mode_mismatch'
  | 'unauthorized'
  | 'forbidden_host'
  | 'forbidden_origin'
  | 'not_found'
  | 'body_too_large'
  | 'internal';

export class TermError extends Error {
  readonly code: ErrorCode;
  /** Extra fields that travel with the error to the client, such as `index` or `modes`. */
  readonly extra: Record<string, unknown>;
  /** True when the same request may succeed if simply repeated later. */
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, extra: Record<string, unknown> = {}, retryable = false) {
    super(message);
    this.name = 'TermError';
    this.code = code;
    this.extra = extra;
    this.retryable = retryable;
  }
}

/** Expected failures travel as values; see CONVENTIONS.md habit 3. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: TermError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail<T = never>(error: TermError): Result<T> {
  return { ok: false, error };
}
