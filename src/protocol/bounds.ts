/**
 * Bounds on what a caller may ask for, beside the wire types they bound. The HTTP schemas (TypeBox), the MCP tool
 * schemas (zod) and core's own checks (SessionManager.create and friends) all read them from here, so a bound is
 * written once. Imports nothing.
 */
export const Bounds = {
  /** Columns and rows of a terminal, at create and resize. */
  dimensionMin: 1,
  dimensionMax: 1000,
  /** argv elements, and characters per element. */
  commandArgsMax: 256,
  commandArgCharsMax: 4096,
  cwdCharsMax: 4096,
  /** Environment variables a caller may add, name and value lengths. */
  envVarsMax: 1024,
  envNameCharsMax: 256,
  envValueCharsMax: 65_536,
  /** Labels per session, key and value lengths. */
  labelsMax: 64,
  labelKeyCharsMax: 128,
  labelValueCharsMax: 1024,
  /** Session names, unique among live sessions. */
  nameCharsMax: 64,
  scrollbackLinesMax: 100_000,
  /** Items in one input batch. */
  inputItemsMax: 10_000,
  /** Longest wait or long poll. */
  waitMsMax: 60_000,
  regexCharsMax: 4096,
  bannerCharsMax: 8192,
  secretReasonCharsMax: 500,
  /** Pictures: pixels per cell row. Below 4 no glyph is legible; above 64 a screen becomes a poster. */
  pictureScaleMin: 4,
  pictureScaleMax: 64,
  pictureScaleDefault: 16,
  /** Pictures: the `max_width` and `max_height` a caller may ask for, in pixels. */
  pictureMaxWidthMin: 16,
  pictureMaxWidthMax: 16_384,
  /** A PNG's pixels at most (64 MiB of RGBA while it is drawn); a larger request is refused, a default one shrunk. */
  picturePixelsMax: 16 * 1024 * 1024,
  /** Recordings as GIF: playback speed. */
  gifSpeedMin: 0.1,
  gifSpeedMax: 100,
  /** A scoped token's label selector: characters and terms. */
  selectorCharsMax: 2048,
  selectorTermsMax: 32,
  /** Session ids a `sessions` scope may list. */
  scopeSessionsMax: 1000,
  /** Command profiles a token may be restricted to, and profiles a config file may declare. */
  tokenProfilesMax: 64,
  profilesMax: 256,
  /**
   * How long a moderated session waits for a person to attach (at start, or after the last one left) before it is
   * ended: at least a second (a reconnect), at most an hour (a session nobody watches must not outlive its promise).
   */
  moderatorGraceMsMin: 1000,
  moderatorGraceMsMax: 60 * 60 * 1000,
  /** Audit entries per page of GET /v1/audit. */
  auditPageMax: 1000,
  /** A command typed through POST .../commands. */
  commandCharsMax: 65_536,
  /** Longest a command call (or a wait on one) may wait before answering "running". */
  commandTimeoutMsMax: 3_600_000,
  /** The most output one command answer carries (`max_output_bytes`); the rest is paged. */
  commandOutputBytesMax: 1024 * 1024,
  /** One page of a command's output. */
  commandOutputPageBytesMax: 1024 * 1024,
} as const;

/** Defaults of a command call, beside the bounds they sit in. */
export const CommandDefaults = {
  timeoutMs: 60_000,
  maxOutputBytes: 16 * 1024,
  pageBytes: 64 * 1024,
} as const;

/** A picture's `rows`: one row or a range, 0-based and inclusive ("0-9", "23"). */
export const ROW_RANGE_PATTERN = '^[0-9]{1,4}(-[0-9]{1,4})?$';

/** `term`: what a terminfo name may look like. */
export const TERM_PATTERN = '^[A-Za-z0-9._+-]{1,64}$';
/**
 * Label keys: letters, digits and `. _ / -`, starting with a letter or digit, so a selector such as
 * `team=red,env!=prod` can never be ambiguous.
 */
export const LABEL_KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$';
/** Environment variable names: anything execve can carry (no `=`, no NUL). */
export const ENV_NAME_PATTERN = '^[^=\\u0000]+$';
/**
 * Session names: a letter first, then letters, digits and `. _ -`. A name is used wherever an id is, so it must be
 * a valid path segment and must not look like a number to a JSON client.
 */
export const NAME_PATTERN = '^[A-Za-z][A-Za-z0-9._-]{0,63}$';
/** Actor names: named tokens' names (and `admin`, `system`). */
export const ACTOR_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
/** Session ids and names as they appear in a path. */
export const SESSION_REF_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

/** Signals a client may send a session. */
export const SIGNAL_NAMES = ['HUP', 'TERM', 'KILL', 'INT', 'QUIT', 'USR1', 'USR2'] as const;
/** Roles of named tokens, least to most. */
export const ROLE_NAMES = ['viewer', 'agent', 'human', 'admin'] as const;
/** Mouse events, buttons and the modifiers held. */
export const MOUSE_TYPES = ['press', 'release', 'click', 'move', 'drag', 'scroll'] as const;
export const MOUSE_BUTTONS = ['left', 'middle', 'right', 'wheel-up', 'wheel-down', 'none'] as const;
export const MOUSE_MODIFIERS = ['shift', 'alt', 'ctrl'] as const;
