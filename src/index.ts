/**
 * The package's public entry: the typed client of a running daemon, the embeddable runtime, and the daemon itself.
 */
export {
  TermhostClient,
  TermhostError,
  parseAddress,
  type ClientOptions,
  type Screen,
  type ScreenChanges,
  type SessionInfo,
  type SessionRecord,
  type SignalAnswer,
  type InputItem,
  type WaitRequest,
  type WaitResult,
  type RuntimeEvent,
  type Lease,
} from './client/TermhostClient.js';
export { EventStream, type EventStreamOptions } from './client/EventStream.js';
export { AttachClient, type AttachEvent, type AttachOptions } from './client/AttachClient.js';
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
