/**
 * The session pane's five states and how each one reads. Pure: no DOM, so it is tested as a table.
 *
 * `refused` (the daemon said no: 401, 403, 404) and `cannot-connect` (the daemon could not be reached, or failed)
 * are never merged into one "error": one means "ask for access", the other "check the daemon".
 */
export type PaneState =
  | { kind: 'starting' }
  | { kind: 'attached'; role: 'driver' | 'viewer' }
  | { kind: 'ended'; reason: string; code: number | null; signal: string | null }
  | { kind: 'cannot-connect'; detail: string }
  | { kind: 'refused'; status: number; detail: string };

export type Tone = 'spinner' | 'green' | 'grey' | 'amber' | 'red';

export interface StatusView {
  tone: Tone;
  text: string;
  /** Shown under the status line: why, and what to do. */
  detail: string;
  reconnect: boolean;
  readOnly: boolean;
}

/** "completed, code 0", "closed, SIGKILL": how a process ended, for people. */
export function describeExit(reason: string, code: number | null, signal: string | null): string {
  if (signal) return `${reason}, ${signal}`;
  if (code !== null) return `${reason}, code ${code}`;
  return reason;
}

export function statusOf(state: PaneState): StatusView {
  switch (state.kind) {
    case 'starting':
      return { tone: 'spinner', text: 'Connecting…', detail: '', reconnect: false, readOnly: false };
    case 'attached':
      return { tone: 'green', text: 'Live', detail: '', reconnect: false, readOnly: state.role === 'viewer' };
    case 'ended':
      return { tone: 'grey', text: `Session ended (${describeExit(state.reason, state.code, state.signal)})`, detail: '', reconnect: true, readOnly: false };
    case 'cannot-connect':
      return { tone: 'amber', text: 'Cannot connect to the daemon', detail: state.detail, reconnect: true, readOnly: false };
    case 'refused':
      return { tone: 'red', text: 'You do not have access', detail: state.detail, reconnect: false, readOnly: false };
  }
}

/** An HTTP failure while connecting: permission answers refuse, everything else is infrastructure. */
export function failureState(status: number, message: string): PaneState {
  if (status === 401) return { kind: 'refused', status, detail: `${message} (sign in again with \`termhost ui\`)` };
  if (status === 403 || status === 404) return { kind: 'refused', status, detail: message };
  return { kind: 'cannot-connect', detail: status === 0 ? message : `the daemon answered ${status}: ${message}` };
}

/** WebSocket close codes of the attach protocol (docs/protocol.md). */
export function closedState(code: number, reason: string): PaneState {
  if (code === 4003) return { kind: 'refused', status: 403, detail: reason || 'the attach credential was refused or revoked' };
  if (code === 4004) return { kind: 'refused', status: 404, detail: reason || 'the session no longer exists' };
  const why = reason ? `${reason} (${code})` : code === 1006 ? 'the connection to the daemon was lost' : `the connection closed (${code})`;
  return { kind: 'cannot-connect', detail: why };
}
