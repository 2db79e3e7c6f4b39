/**
 * `termhost/client`: the typed client of a running daemon and nothing else, so a program that only talks to a daemon
 * loads in milliseconds (the package's main entry also carries the runtime and the daemon).
 */
export {
  TermhostClient,
  TermhostError,
  parseAddress,
  formatAddress,
  type Address,
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
  type Screenshot,
  type ScreenshotOptions,
} from './TermhostClient.js';
export { EventStream, type EventStreamOptions } from './EventStream.js';
export type { AttachClient, AttachEvent, AttachOptions } from './AttachClient.js';
