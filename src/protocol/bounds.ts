/**
 * Bounds and value lists of the requests, in plain constants: the request schemas (http.ts) read them, and so does
 * the CLI, which checks its flags against them before sending anything and without loading a schema library.
 */
export const Bounds = {
  /** Terminal columns and rows a session may have. */
  dimensionMin: 1,
  dimensionMax: 1000,
  /** Longest a wait may block, and its quiet or stable period. */
  waitMaxMs: 60_000,
  /** Scrollback lines one read may ask for. */
  scrollbackReadMaxLines: 100_000,
} as const;

/** Signals a client may send a session. */
export const SIGNAL_NAMES = ['HUP', 'TERM', 'KILL', 'INT', 'QUIT', 'USR1', 'USR2'] as const;

/** Roles of named tokens, least to most. */
export const ROLE_NAMES = ['viewer', 'agent', 'human', 'admin'] as const;

export const MOUSE_TYPES = ['press', 'release', 'click', 'move', 'drag', 'scroll'] as const;
export const MOUSE_BUTTONS = ['left', 'middle', 'right', 'wheel-up', 'wheel-down', 'none'] as const;
export const MOUSE_MODIFIERS = ['shift', 'alt', 'ctrl'] as const;
