/**
 * The error catalogue: every stable code a client can see, with its HTTP status, whether repeating the same request
 * later may succeed, and when it happens. Core errors take their code from here, the server takes the status from
 * here, and a test checks that docs/api.md lists exactly these codes with these statuses. Imports nothing.
 */

export interface ErrorSpec {
  /** HTTP status of the answer. */
  status: number;
  /** Default for `retryable`: the very same request may succeed if repeated later. */
  retryable: boolean;
  /** One line: when a client meets it. */
  when: string;
}

export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, retryable: false, when: 'the request does not fit the route: a field, a bound, a path or query' },
  invalid_json: { status: 400, retryable: false, when: 'the body is not valid JSON' },
  invalid_key: { status: 400, retryable: false, when: 'an input item names a key that is unknown or has no terminal encoding' },
  invalid_input: { status: 400, retryable: false, when: 'an input item has not exactly one of text, key, paste, raw (embedded runtime)' },
  invalid_mouse: { status: 400, retryable: false, when: 'a mouse event that makes no sense on its own' },
  invalid_regex: { status: 400, retryable: false, when: 'a wait regex that cannot be compiled or cannot be matched in linear time' },
  command_not_found: { status: 400, retryable: false, when: 'the program to start is not found or not executable' },
  cwd_not_found: { status: 400, retryable: false, when: 'the working directory does not exist' },
  unauthorized: { status: 401, retryable: false, when: 'missing, wrong or revoked credential' },
  forbidden: { status: 403, retryable: false, when: "the actor's role does not allow this" },
  command_not_allowed: { status: 403, retryable: false, when: 'a command, or a profile, this daemon or this token may not start' },
  forbidden_host: { status: 403, retryable: false, when: 'the Host header is not allowed' },
  forbidden_origin: { status: 403, retryable: false, when: 'a browser Origin that may not do this' },
  session_not_found: { status: 404, retryable: false, when: 'no session (or record) with that id or name' },
  not_found: { status: 404, retryable: false, when: 'no such route' },
  lease_not_found: { status: 404, retryable: false, when: 'no such lease held by this actor' },
  token_not_found: { status: 404, retryable: false, when: 'no token with that name' },
  command_id_not_found: { status: 404, retryable: false, when: 'no command with that id in the session (the last 100 are kept)' },
  session_exited: { status: 409, retryable: false, when: 'the process has exited: no input, no signal' },
  session_name_taken: { status: 409, retryable: false, when: 'a live session already has that name' },
  lease_held: { status: 409, retryable: true, when: "another actor's lease is in the way" },
  lease_required: { status: 409, retryable: false, when: 'agent input without a lease where one is needed' },
  lease_preempted: { status: 409, retryable: false, when: 'a person took the keyboard from this agent' },
  lease_limit: { status: 409, retryable: false, when: 'the session holds the most leases it may' },
  token_exists: { status: 409, retryable: false, when: 'a token with that name exists' },
  token_limit: { status: 409, retryable: false, when: 'the most named tokens exist' },
  input_queue_full: { status: 409, retryable: true, when: 'the program is not reading its input' },
  mouse_not_enabled: { status: 409, retryable: false, when: 'the program has not enabled mouse tracking' },
  mouse_mode_mismatch: { status: 409, retryable: false, when: "the program's mouse mode cannot carry this event" },
  moderator_required: { status: 409, retryable: true, when: 'agent input to a moderated session while no person is attached as driver' },
  input_paused: { status: 409, retryable: true, when: 'agent input while a moderator has paused it' },
  secret_input_settling: { status: 409, retryable: true, when: 'ending a secret-input window before the session went quiet' },
  no_shell_integration: { status: 409, retryable: false, when: 'a command call on a session whose shell does not report its prompts (sh, dash, integration off)' },
  command_running: { status: 409, retryable: true, when: 'a command call while another command runs in the session' },
  not_at_prompt: { status: 409, retryable: true, when: 'a command call while the shell shows no prompt, or text is typed at it' },
  body_too_large: { status: 413, retryable: false, when: 'the request body is over the limit' },
  rate_limited: { status: 429, retryable: true, when: 'a token (or an address, for failed sign-ins) did this too often this minute' },
  // Reads during a window are 423 (the screen is locked); input refused by a window is 409 (see INPUT_STATUS).
  secret_input_active: { status: 423, retryable: true, when: 'a secret-input window is open' },
  spawn_failed: { status: 500, retryable: false, when: 'the checks passed but the PTY could not be started' },
  internal: { status: 500, retryable: false, when: 'a bug; the daemon log has the details' },
  session_limit: { status: 503, retryable: true, when: 'the live-session cap is reached' },
  connection_limit: { status: 503, retryable: true, when: 'too many long-lived requests of one kind are open' },
  renderer_busy: { status: 503, retryable: true, when: 'too many pictures or recordings are being drawn at once' },
  render_failed: { status: 500, retryable: false, when: 'a picture could not be drawn (the canvas or the bundled font failed to load)' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The one code with a second status: agent input refused by a secret-input window (extra `refused: "input"`). */
export const INPUT_STATUS: Partial<Record<ErrorCode, number>> = { secret_input_active: 409 };

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, code);
}
