/**
 * The package's public entry: the typed client of a running daemon, the embeddable runtime, and the daemon itself.
 */
// The client (also its own entry, termhost/client), with AttachClient as a value here: that entry exports only its type.
export * from './client/index.js';
export { AttachClient } from './client/AttachClient.js';
export {
  Runtime,
  type RuntimeOptions,
  TermError,
  type ErrorCode,
  type Result,
  type Actor,
  SYSTEM_ACTOR,
  type Session,
  type SessionSpec,
  type SessionManager,
  type WaitCondition,
  type WaitOutcome,
  type ChangesOptions,
  type Signal,
  type LeaseMode,
  type EventBus,
} from './core/index.js';
export { startDaemon, type Daemon, type DaemonOptions } from './main.js';
