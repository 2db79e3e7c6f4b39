/**
 * Wire types of the HTTP API v1, as TypeBox schemas. The same objects validate requests at the edge, type the server
 * and client code, and generate /openapi.json. Field names are snake_case on the wire.
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  Bounds,
  ENV_NAME_PATTERN,
  LABEL_KEY_PATTERN,
  MOUSE_BUTTONS,
  MOUSE_MODIFIERS,
  MOUSE_TYPES,
  NAME_PATTERN,
  ROLE_NAMES,
  SESSION_REF_PATTERN,
  SIGNAL_NAMES,
  TERM_PATTERN,
} from './bounds.js';
import { StyledRowsSchema } from './styled.js';
import { ModerationStateSchema } from './moderation.js';

/** A string enum as a plain JSON Schema `enum`, typed as the union of its values. */
export function StringEnum<const T extends string>(values: readonly T[], options: Record<string, unknown> = {}) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}

const Dimension = (description: string) => Type.Integer({ minimum: Bounds.dimensionMin, maximum: Bounds.dimensionMax, description });

export const MouseTrackingSchema = Type.Union(
  [Type.Literal('off'), Type.Literal('x10'), Type.Literal('normal'), Type.Literal('button_event'), Type.Literal('any_event')],
  { description: 'DECSET mouse tracking: off, ?9 x10, ?1000 normal, ?1002 button_event, ?1003 any_event' },
);

export const ModesSchema = Type.Object(
  {
    mouse: MouseTrackingSchema,
    mouse_encoding: StringEnum(['default', 'sgr', 'sgr_pixels'], {
      description: 'sgr when ?1006 is set; sgr_pixels (?1016) wants pixel positions, which termhost cannot send',
    }),
    app_cursor_keys: Type.Boolean({ description: 'DECCKM (?1): arrows are sent as SS3 sequences' }),
    bracketed_paste: Type.Boolean({ description: '?2004: paste items are wrapped in bracketed-paste markers' }),
  },
  { description: "The application's live DEC modes, as the emulator tracks them." },
);

export const InputNeededSchema = Type.Object(
  {
    kind: StringEnum(['line', 'password', 'raw'], {
      description: 'line: a line read with echo (Continue? [Y/n]); password: a line read without echo; raw: a full-screen or raw-mode program waiting for a key',
    }),
    prompt: Type.String({ description: 'The cursor line when the program began waiting.' }),
  },
  { description: 'The foreground program is blocked reading the terminal, as the kernel reports it.' },
);

export const ShellIntegrationSchema = StringEnum(['active', 'off', 'unsupported'], {
  description: 'active: the shell reports prompts and commands (bash, zsh, fish); off: turned off at create; unsupported: another program or shell',
});

export const ShellStateSchema = Type.Object(
  {
    state: StringEnum(['unknown', 'at_prompt', 'running', 'input_needed'], {
      description: 'unknown without integration (or before the first prompt); input_needed: the running command waits on the terminal',
    }),
    command_id: Type.Union([Type.String(), Type.Null()], { description: 'The running command (GET .../commands/{command_id}).' }),
    command: Type.Union([Type.String(), Type.Null()], { description: 'Its command line.' }),
    since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When this state began.' }),
    cwd: Type.Union([Type.String(), Type.Null()], { description: "The shell's working directory, as it last reported it (OSC 7)." }),
    input_needed: Type.Union([InputNeededSchema, Type.Null()]),
  },
  { description: 'What the shell (or, without integration, the foreground program) is doing.' },
);
export type ShellState = Static<typeof ShellStateSchema>;

/** What a screen shares with a changes answer besides its rows: cursor, modes and process state. */
const ScreenStateFields = {
    shell_integration: ShellIntegrationSchema,
    shell: ShellStateSchema,
    cursor: Type.Object({ x: Type.Integer(), y: Type.Integer(), visible: Type.Boolean() }),
    alt_screen: Type.Boolean(),
    title: Type.String(),
    modes: ModesSchema,
    exited: Type.Boolean(),
    exit_code: Type.Union([Type.Integer(), Type.Null()]),
    exit_signal: Type.Union([Type.String(), Type.Null()]),
    exit_reason: Type.Union([StringEnum(['completed', 'crashed', 'closed']), Type.Null()]),
    last_output_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
};

export const HighlightSchema = Type.Object(
  {
    row: Type.Integer({ minimum: 0 }),
    col: Type.Integer({ minimum: 0, description: 'Terminal column where the run starts.' }),
    len: Type.Integer({ minimum: 1, description: 'Width of the run in terminal columns.' }),
    text: Type.String(),
  },
  { description: 'A run of cells drawn in inverse video: how most TUIs mark the selected item.' },
);

export const ScreenSchema = Type.Object(
  {
    seq: Type.Integer({ description: 'Output byte offset this screen reflects.' }),
    cols: Type.Integer(),
    rows: Type.Integer(),
    lines: Type.Array(Type.String(), { description: 'One string per row, right-trimmed.' }),
    ...ScreenStateFields,
    raw: Type.Optional(Type.String({ description: 'Styled ANSI that repaints this screen (format=raw only).' })),
    highlights: Type.Optional(Type.Array(HighlightSchema, { description: 'Runs drawn in inverse video (highlights=true only).' })),
    styled: Type.Optional(StyledRowsSchema),
  },
  {},
);
export type Screen = Static<typeof ScreenSchema>;

/**
 * What changed since an earlier read: only the rows whose text differs, plus the cursor, modes and process state.
 * `full` means the earlier screen is unknown (too old, from before a resize, or never served) and `lines` holds the
 * whole screen instead of `changes`.
 */
export const ScreenChangesSchema = Type.Object(
  {
    seq: Type.Integer({ description: 'Output byte offset this answer reflects; pass it as since_seq next time.' }),
    since_seq: Type.Integer({ description: 'The since_seq the client asked about.' }),
    changed: Type.Boolean({ description: 'False when nothing visible changed: no row, cursor, mode, title or exit state.' }),
    full: Type.Boolean({ description: 'True when the earlier screen was unknown and `lines` holds the whole screen.' }),
    changes: Type.Optional(
      Type.Array(Type.Object({ row: Type.Integer({ minimum: 0 }), text: Type.String() }), { description: 'Changed rows (full=false only).' }),
    ),
    lines: Type.Optional(Type.Array(Type.String(), { description: 'The whole screen (full=true only).' })),
    cols: Type.Integer(),
    rows: Type.Integer(),
    ...ScreenStateFields,
    highlights: Type.Optional(Type.Array(HighlightSchema)),
  },
  {},
);
export type ScreenChanges = Static<typeof ScreenChangesSchema>;
export type Modes = Static<typeof ModesSchema>;

const Labels = Type.Record(Type.String(), Type.String({ maxLength: Bounds.labelValueCharsMax }), {
  description: `String labels, filterable with ?label=k=v. At most ${Bounds.labelsMax}; keys are 1..${Bounds.labelKeyCharsMax} letters, digits or . _ / -; values have no control characters.`,
  propertyNames: { pattern: LABEL_KEY_PATTERN },
  maxProperties: Bounds.labelsMax,
});

export const ActorSchema = Type.Object({
  name: Type.String(),
  kind: StringEnum(['admin', 'human', 'agent', 'viewer', 'system']),
});

export const SessionInfoSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()], { description: 'The name given at creation, usable wherever the id is.' }),
    live: Type.Literal(true, { description: 'A running (or exited, not yet freed) session in this daemon.' }),
    pid: Type.Integer(),
    command: Type.Array(Type.String()),
    cwd: Type.String(),
    cols: Type.Integer(),
    rows: Type.Integer(),
    term: Type.String(),
    title: Type.String(),
    labels: Labels,
    created_at: Type.String({ format: 'date-time' }),
    exited: Type.Boolean(),
    exit_code: Type.Union([Type.Integer(), Type.Null()]),
    exit_signal: Type.Union([Type.String(), Type.Null()]),
    exit_reason: Type.Union([StringEnum(['completed', 'crashed', 'closed']), Type.Null()], {
      description: 'completed: exited by itself; crashed: killed by a signal termhost did not send; closed: ended by request',
    }),
    seq: Type.Integer({ description: 'Output bytes so far.' }),
    clients: Type.Object({ viewers: Type.Integer(), drivers: Type.Integer() }, { description: 'Attached clients.' }),
    last_output_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    input_policy: StringEnum(['auto', 'lease'], { description: 'auto: agents without a lease get an implicit shared one per request' }),
    secret_input: Type.Boolean({ description: 'A secret-input window is open: seq, title and last_output_at are frozen.' }),
    last_input_by: Type.Union([ActorSchema, Type.Null()], { description: 'Who sent the last accepted input (never what).' }),
    created_by: Type.Union([ActorSchema, Type.Null()]),
    transcript: StringEnum(['off', 'redacted', 'raw']),
    shell_integration: ShellIntegrationSchema,
    shell: ShellStateSchema,
    untrusted_marks: Type.Integer({ description: 'Shell marks ignored because they lacked the session nonce (a program printed them).' }),
    moderation: ModerationStateSchema,
  },
  {},
);
export type SessionInfo = Static<typeof SessionInfoSchema>;

export const CreateSessionBody = Type.Object(
  {
    command: Type.Optional(
      Type.Array(Type.String({ maxLength: Bounds.commandArgCharsMax }), { minItems: 1, maxItems: Bounds.commandArgsMax, description: 'argv; default $SHELL' }),
    ),
    cwd: Type.Optional(Type.String({ maxLength: Bounds.cwdCharsMax })),
    env: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: Bounds.envValueCharsMax }), {
        description: `Merged over the daemon environment. At most ${Bounds.envVarsMax} variables, names 1..${Bounds.envNameCharsMax} characters.`,
        propertyNames: { minLength: 1, maxLength: Bounds.envNameCharsMax, pattern: ENV_NAME_PATTERN },
        maxProperties: Bounds.envVarsMax,
      }),
    ),
    cols: Type.Optional(Dimension('default 80')),
    rows: Type.Optional(Dimension('default 24')),
    term: Type.Optional(Type.String({ pattern: TERM_PATTERN, description: 'default xterm-256color' })),
    scrollback: Type.Optional(Type.Integer({ minimum: 0, maximum: Bounds.scrollbackLinesMax, description: 'default 1000 lines' })),
    labels: Type.Optional(Labels),
    input_policy: Type.Optional(StringEnum(['auto', 'lease'], { description: 'default auto, or lease with --require-leases' })),
    secret_detect: Type.Optional(Type.Boolean({ description: 'Open a secret-input window on password prompts (default true).' })),
    transcript: Type.Optional(StringEnum(['off', 'redacted', 'raw'], { description: 'What is stored of the output; raw needs an admin.' })),
    name: Type.Optional(
      Type.String({ pattern: NAME_PATTERN, description: 'A name to address the session by wherever an id is accepted; unique among live sessions.' }),
    ),
    remove_on_exit: Type.Optional(Type.Boolean({ description: 'Free the session as soon as its process exits (the record stays).' })),
    profile: Type.Optional(
      Type.String({ pattern: NAME_PATTERN, description: "Start this command profile of the daemon's (GET /v1/profiles); with --restrict-commands, the only way to start one." }),
    ),
    shell_integration: Type.Optional(
      Type.Boolean({ description: 'Report prompts and commands from bash, zsh and fish (default true); false starts the shell untouched.' }),
    ),
    require_moderator: Type.Optional(
      Type.Boolean({
        description: 'Agents may type only while a person (human or admin token) is attached as driver; nobody for moderator_grace_ms ends the session. A profile may require it too.',
      }),
    ),
    moderator_grace_ms: Type.Optional(
      Type.Integer({
        minimum: Bounds.moderatorGraceMsMin,
        maximum: Bounds.moderatorGraceMsMax,
        description: "How long a moderated session waits for a person (at start, and after the last one leaves); default the daemon's, 5 min.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateSession = Static<typeof CreateSessionBody>;

/** A command profile as clients see it (its env is not shown: it may hold credentials). */
export const ProfileInfoSchema = Type.Object({
  name: Type.String(),
  command: Type.Array(Type.String()),
  cwd: Type.Union([Type.String(), Type.Null()]),
  cols: Type.Union([Type.Integer(), Type.Null()]),
  rows: Type.Union([Type.Integer(), Type.Null()]),
  labels: Type.Record(Type.String(), Type.String()),
  transcript: Type.Union([StringEnum(['off', 'redacted', 'raw']), Type.Null()]),
  require_moderator: Type.Boolean({ description: 'Its sessions need a person attached as driver for agents to type.' }),
});
export const ProfilesSchema = Type.Object({
  profiles: Type.Array(ProfileInfoSchema),
  restricted: Type.Boolean({ description: 'true: sessions start only from these profiles (--restrict-commands), or this token may start only them' }),
});
export type ProfilesAnswer = Static<typeof ProfilesSchema>;

export const InputItemSchema = Type.Union(
  [
    Type.Object({ text: Type.String({ description: 'Literal text, sent as UTF-8.' }) }, { additionalProperties: false }),
    Type.Object({ key: Type.String({ description: 'A key name such as Enter, C-c, M-x, Up, F5.' }) }, { additionalProperties: false }),
    Type.Object(
      { paste: Type.String({ description: 'Text wrapped in bracketed-paste markers when the app enabled ?2004.' }) },
      { additionalProperties: false },
    ),
    Type.Object({ raw: Type.String({ description: 'Escape hatch: these characters go to the PTY as UTF-8.' }) }, { additionalProperties: false }),
  ],
  {},
);
export type InputItem = Static<typeof InputItemSchema>;

const LeaseIdField = Type.Optional(Type.String({ maxLength: 64, description: 'The lease this input is sent under (agents).' }));

export const InputBody = Type.Object(
  {
    input: Type.Array(InputItemSchema, { maxItems: Bounds.inputItemsMax, description: 'Delivered all-or-nothing, in order.' }),
    lease_id: LeaseIdField,
  },
  { additionalProperties: false },
);

export const MouseBody = Type.Object(
  {
    type: StringEnum(MOUSE_TYPES),
    button: Type.Optional(StringEnum(MOUSE_BUTTONS)),
    x: Type.Integer({ minimum: 0, description: '0-based column' }),
    y: Type.Integer({ minimum: 0, description: '0-based row' }),
    modifiers: Type.Optional(Type.Array(StringEnum(MOUSE_MODIFIERS), { maxItems: 3 })),
    lease_id: LeaseIdField,
  },
  { additionalProperties: false },
);
export type MouseRequest = Static<typeof MouseBody>;

export const ResizeBody = Type.Object({ cols: Dimension('columns'), rows: Dimension('rows') }, { additionalProperties: false });

export const SignalName = StringEnum(SIGNAL_NAMES);
export const SignalBody = Type.Object({ signal: SignalName }, { additionalProperties: false });

/** Which process group a signal went to: the terminal's foreground group, as Ctrl-C would reach it. */
export const SignalledSchema = Type.Object(
  {
    pgid: Type.Integer({ description: 'The process group that received the signal.' }),
    leader_pid: Type.Union([Type.Integer(), Type.Null()], { description: "The group's leader (its pid is the pgid), or null if it has exited." }),
    command: Type.Union([Type.String(), Type.Null()], { description: "The leader's command line, at most 256 characters, or null." }),
    signal: SignalName,
  },
  { additionalProperties: false },
);
export type Signalled = Static<typeof SignalledSchema>;

export const SignalAnswerSchema = Type.Composite([
  SessionInfoSchema,
  Type.Object({
    signalled: Type.Union([SignalledSchema, Type.Null()], { description: 'null when no process was left to receive it.' }),
  }),
]);
export type SignalAnswer = Static<typeof SignalAnswerSchema>;

export const WaitBody = Type.Object(
  {
    text: Type.Optional(Type.String({ minLength: 1, description: 'Matched when the screen contains this text.' })),
    regex: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: Bounds.regexCharsMax,
        description: 'JavaScript regex, multiline, against lines joined by \\n; matched off the event loop, at most 250 ms per check.',
      }),
    ),
    quiet_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: Bounds.waitMsMax, description: 'No output bytes for this long.' })),
    stable_ms: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: Bounds.waitMsMax,
        description: 'The screen text stayed the same for this long, even if bytes kept arriving (a redraw of the same text).',
      }),
    ),
    exit: Type.Optional(Type.Boolean({ description: 'Matched when the process has exited.' })),
    after_seq: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'text and regex look only below the line where the input that answered this seq was typed (its echo is not matched).',
      }),
    ),
    after_input: Type.Optional(Type.Boolean({ description: 'Like after_seq, for the last input anyone sent to the session.' })),
    prompt: Type.Optional(Type.Boolean({ description: 'Matched when the shell is at its prompt with nothing typed (shell integration).' })),
    input_needed: Type.Optional(Type.Boolean({ description: 'Matched when the foreground program waits on the terminal for input (kernel evidence).' })),
    timeout_ms: Type.Integer({ minimum: 0, maximum: Bounds.waitMsMax }),
  },
  { additionalProperties: false },
);
export type WaitRequest = Static<typeof WaitBody>;

export const WaitResultSchema = Type.Object(
  {
    matched: Type.Boolean(),
    reason: StringEnum(['text', 'regex', 'quiet', 'stable', 'exit', 'prompt', 'input_needed', 'timeout']),
    input_needed: Type.Optional(InputNeededSchema),
    exit_code: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: 'Present when the wait ended because the process exited.' })),
    exit_signal: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Present when the wait ended because the process exited.' })),
    screen: ScreenSchema,
  },
  {},
);
export type WaitResult = Static<typeof WaitResultSchema>;

const CommandFields = {
  id: Type.String({ description: 'Unique within the session: c1, c2, ...' }),
  command: Type.String({ description: 'The command line: as sent, or as read from the screen for one a person typed.' }),
  status: StringEnum(['running', 'input_needed', 'exited']),
  exit_code: Type.Union([Type.Integer(), Type.Null()], { description: 'The status the shell reported (130 after Ctrl-C in bash); null while running.' }),
  rejected: Type.Boolean({ description: 'The shell did not run it (fish keeps a syntax error in its editor; termhost clears the line).' }),
  started_at: Type.String({ format: 'date-time' }),
  ended_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
  cwd: Type.Union([Type.String(), Type.Null()], { description: 'The working directory it ran in (OSC 7).' }),
  typed_by: Type.Union([ActorSchema, Type.Null()], { description: 'Who typed it, when termhost knows (the API caller, or the one actor who typed).' }),
  input_needed: Type.Union([InputNeededSchema, Type.Null()]),
  output_bytes: Type.Integer({ description: 'Bytes of its output text so far.' }),
};

export const CommandSummarySchema = Type.Object(CommandFields, { description: 'One command a shell ran, without its output.' });
export type CommandSummary = Static<typeof CommandSummarySchema>;

export const CommandResultSchema = Type.Object(
  {
    ...CommandFields,
    output: Type.String({ description: "Only this command's output, as text, within max_output_bytes: head and tail around one line saying what was left out." }),
    output_truncated: Type.Boolean(),
    output_complete: Type.Boolean({ description: 'false when some output could not be kept (see the line in the output that says so).' }),
    secret_input: Type.Boolean({ description: 'A secret-input window is open: status and output are as they were when it opened.' }),
  },
  { description: 'A command and its output.' },
);
export type CommandResult = Static<typeof CommandResultSchema>;

export const RunCommandBody = Type.Object(
  {
    command: Type.String({ minLength: 1, maxLength: Bounds.commandCharsMax, description: 'Typed at the prompt; several lines go as one bracketed paste.' }),
    timeout_ms: Type.Optional(
      Type.Integer({ minimum: 0, maximum: Bounds.commandTimeoutMsMax, description: 'Answer "running" after this long (default 60000); the command keeps running.' }),
    ),
    max_output_bytes: Type.Optional(Type.Integer({ minimum: 0, maximum: Bounds.commandOutputBytesMax, description: 'Output budget (default 16384).' })),
    lease_id: LeaseIdField,
  },
  { additionalProperties: false },
);
export type RunCommandRequest = Static<typeof RunCommandBody>;

export const CommandOutputPageSchema = Type.Object({
  command_id: Type.String(),
  offset: Type.Integer({ description: 'Byte offset of this page in the output text (moved to a character boundary).' }),
  next_offset: Type.Integer({ description: 'Where the next page starts.' }),
  total_bytes: Type.Integer({ description: 'Bytes of output held now (a running command has more to come).' }),
  eof: Type.Boolean({ description: 'This page reaches the end of what is held.' }),
  complete: Type.Boolean({ description: 'The command ended and all of its output was kept.' }),
  output: Type.String(),
});
export type CommandOutputPage = Static<typeof CommandOutputPageSchema>;

export const ErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'What went wrong, for a person.' }),
    code: Type.String({ description: 'Stable machine-readable code.' }),
    retryable: Type.Boolean(),
  },
  { additionalProperties: true },
);
export type ErrorBody = Static<typeof ErrorSchema> & Record<string, unknown>;

export const ScrollbackSchema = Type.Object({ lines: Type.Array(Type.String()), total: Type.Integer() });

export const AttachTokenBody = Type.Object(
  { role: Type.Optional(StringEnum(['viewer', 'driver'], { description: 'default viewer' })) },
  { additionalProperties: false },
);
export const AttachTokenSchema = Type.Object({
  token: Type.String({ description: 'Send it in the first WebSocket frame: {"kind":"auth","token":...}.' }),
  ws_path: Type.String(),
  role: StringEnum(['viewer', 'driver']),
  expires_in_s: Type.Integer(),
});

export const BannerBody = Type.Object(
  { message: Type.String({ minLength: 1, maxLength: Bounds.bannerCharsMax, description: 'Shown to people watching the session.' }) },
  { additionalProperties: false },
);

export const SessionRecordSchema = Type.Object(
  {
    id: Type.String(),
    live: Type.Literal(false, { description: 'A stored record: the session ended and was deleted, or ran before a restart.' }),
    command: Type.Array(Type.String()),
    cwd: Type.String(),
    labels: Type.Record(Type.String(), Type.String()),
    cols: Type.Integer(),
    rows: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    ended_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    exit_code: Type.Union([Type.Integer(), Type.Null()]),
    exit_signal: Type.Union([Type.String(), Type.Null()]),
    exit_reason: Type.Union([Type.String(), Type.Null()], { description: 'completed, crashed (also: the daemon died), closed' }),
    last_seq: Type.Integer({ description: 'Output bytes the session produced.' }),
    created_by: Type.Union([ActorSchema, Type.Null()]),
    transcript: StringEnum(['off', 'redacted', 'raw']),
    transcript_complete: Type.Boolean({ description: 'false when output arrived faster than it could be stored' }),
  },
  {},
);
export type SessionRecord = Static<typeof SessionRecordSchema>;

export const TranscriptPageSchema = Type.Object({
  session_id: Type.String(),
  chunks: Type.Array(
    Type.Object({
      seq: Type.Integer(),
      text: Type.String(),
      at: Type.String({ format: 'date-time' }),
      times: Type.Array(Type.Tuple([Type.Integer(), Type.Integer()]), {
        description: 'When parts of the text arrived: [offset, ms] pairs, from offset (code points into text) on the text arrived ms after at',
      }),
    }),
  ),
  last_seq: Type.Union([Type.Integer(), Type.Null()], { description: 'Stream offset of the last byte this page covers; next page: from_seq = last_seq + 1' }),
  next_seq: Type.Integer({ description: 'last_seq + 1: the next from_seq, and the since_seq to attach from without duplicates' }),
  has_more: Type.Boolean(),
  total: Type.Integer({ description: 'Chunks stored for the session.' }),
});

export const LeaseSchema = Type.Object({
  lease_id: Type.String(),
  actor: ActorSchema,
  mode: StringEnum(['shared', 'exclusive']),
  expires_at: Type.String({ format: 'date-time' }),
});

export const LeaseBody = Type.Object(
  {
    mode: StringEnum(['shared', 'exclusive']),
    ttl_ms: Type.Integer({ minimum: 100, maximum: 600000, description: '100 ms .. 10 min' }),
    lease_id: Type.Optional(Type.String({ maxLength: 64, description: 'Renew this lease instead of taking a new one.' })),
  },
  { additionalProperties: false },
);

export const SecretStateSchema = Type.Object({
  active: Type.Boolean(),
  since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  started_by: Type.Union([ActorSchema, Type.Null()]),
  input_received: Type.Boolean({ description: 'A person has typed into the open window; until then it waits for one.' }),
});

export const SecretActionBody = Type.Object(
  { action: StringEnum(['start', 'end']), reason: Type.Optional(Type.String({ maxLength: Bounds.secretReasonCharsMax })) },
  { additionalProperties: false },
);

/**
 * Which sessions a token may know of: `"own"` (those it started), `{"labels": "team=red,env!=prod"}` (a label
 * selector) or `{"sessions": ["id", ...]}`. Out of scope, every route answers as if the session did not exist.
 */
export const ScopeSchema = Type.Union(
  [
    Type.Literal('own', { description: 'The sessions started with this token.' }),
    Type.Object(
      { labels: Type.String({ minLength: 1, maxLength: Bounds.selectorCharsMax, description: 'A label selector: k=v, k!=v, k, !k, joined by commas (and).' }) },
      { additionalProperties: false },
    ),
    Type.Object(
      { sessions: Type.Array(Type.String({ pattern: SESSION_REF_PATTERN }), { minItems: 1, maxItems: Bounds.scopeSessionsMax, description: 'Session ids.' }) },
      { additionalProperties: false },
    ),
  ],
  { description: 'own, {"labels": selector} or {"sessions": [ids]}' },
);
export type WireScope = Static<typeof ScopeSchema>;

const ProfileNames = Type.Array(Type.String({ pattern: NAME_PATTERN }), {
  minItems: 1,
  maxItems: Bounds.tokenProfilesMax,
  description: 'The command profiles this token may start, and nothing else.',
});

export const TokenInfoSchema = Type.Object({
  name: Type.String(),
  role: StringEnum(ROLE_NAMES),
  created_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  scope: Type.Union([ScopeSchema, Type.Null()], { description: 'null: every session (unscoped).' }),
  profiles: Type.Union([ProfileNames, Type.Null()], { description: 'null: whatever the daemon allows.' }),
});

export const CreateTokenBody = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' }),
    role: StringEnum(ROLE_NAMES),
    scope: Type.Optional(ScopeSchema),
    profiles: Type.Optional(ProfileNames),
  },
  { additionalProperties: false },
);

export const SessionRef = Type.String({ pattern: SESSION_REF_PATTERN, description: 'A session id, or the name it was given.' });
export const SessionIdParams = Type.Object({ id: SessionRef });
