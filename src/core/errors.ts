/**
 * The one error type of termhost. Every failure a client can see carries a stable `code`; only the server maps codes
 * to HTTP statuses (server/errors.ts). Core code returns these as values for expected failures and throws them only
 * where a caller cannot reasonably go on.
 */

import { ERROR_CATALOGUE, type ErrorCode } from '../protocol/errors.js';

export type { ErrorCode };

export class TermError extends Error {
  readonly code: ErrorCode;
  /** Extra fields that travel with the error to the client, such as `index` or `modes`. */
  readonly extra: Record<string, unknown>;
  /** True when the same request may succeed if simply repeated later. */
  readonly retryable: boolean;

  /** `retryable` defaults to the catalogue's answer for the code (protocol/errors.ts). */
  constructor(code: ErrorCode, message: string, extra: Record<string, unknown> = {}, retryable: boolean = ERROR_CATALOGUE[code].retryable) {
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
