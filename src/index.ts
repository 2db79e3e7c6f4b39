/**
 * The package's public entry: the typed client of a running daemon, the embeddable runtime, and the daemon itself.
 */
export { TermhostClient, TermhostError, parseAddress, type ClientOptions } from './client/TermhostClient.js';
export { AttachClient, type AttachEvent, type AttachOptions } from './client/AttachClient.js';
export { Runtime, type RuntimeOptions, TermError, type Actor, type Session, type SessionSpec } from './core/index.js';
export { startDaemon, type Daemon, type DaemonOptions } from './main.js';
