/** The only door the outer layers (server, CLI, MCP, store, UI) use into the runtime. */
export { TermError, ok, fail, type ErrorCode, type Result } from './errors.js';
export { Limits } from './limits.js';
export { SessionManager, type SessionSpec, type SessionManagerOptions } from './session/SessionManager.js';
export { Session, type ExitReason, type ResolvedSpec, type AttachedClient, type ClientRole, type InputSource } from './session/Session.js';
export { repaint, renderFrame } from './snapshot/render.js';
export { styledRows, withStyledRows, spansToAnsi, highlightsOf, type Span, type Highlight } from './snapshot/styled.js';
export { changesSince, type ChangesOptions } from './session/changes.js';
export { diffScreens } from './snapshot/diff.js';
export { waitFor, compileWaitRegex, type WaitCondition, type WaitOutcome } from './session/wait.js';
export { encodeInput, type InputItem } from './input/batch.js';
export { encodeKey, isKeyName } from './input/keys.js';
export type { MouseEvent } from './input/mouse.js';
export { SIGNALS, type Signal, type PtyExit } from './pty/PtyProcess.js';
export { Runtime, type RuntimeOptions } from './Runtime.js';
export { EventBus, EVENT_BACKLOG } from './events/EventBus.js';
export { type Actor, type ActorKind, type Role, SYSTEM_ACTOR, isHuman, atLeast, ROLE_ORDER } from './control/actor.js';
export { LEASE_TTL_MAX_MS, LEASE_TTL_MIN_MS, type Lease, type LeaseMode, type InputPolicy } from './control/LeaseTable.js';
export { SECRET_SETTLE_MS, looksLikeSecretPrompt, type SecretState } from './control/SecretWindow.js';
