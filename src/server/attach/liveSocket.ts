/**
 * What every live session socket does the same way, whatever it speaks (the attach protocol or ALiS): refuse to queue
 * without bound for a slow reader, keep checking the peer is there, and close so that a peer that never completes
 * the closing handshake is cut off.
 */
import type { WebSocket } from 'ws';
import { CloseCode } from '../../protocol/attach.js';

/** How long a closed socket's peer has to complete the closing handshake before it is cut off. */
const CLOSE_GRACE_MS = 2000;

export function closeSocket(ws: WebSocket, code: number, reason: string): void {
  // Close reasons are limited to 123 bytes by the WebSocket protocol.
  ws.close(code, reason.slice(0, 120));
  setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
}

/**
 * Send, unless the peer has fallen more than `maxBufferedBytes` behind: then `close` is called with 4008 and the
 * data is dropped, so one slow viewer costs a bounded amount of memory and never slows the session or the others.
 */
export function sendBounded(
  ws: WebSocket,
  data: Buffer | Uint8Array | string,
  binary: boolean,
  maxBufferedBytes: number,
  close: (code: number, reason: string) => void,
): void {
  if (ws.readyState !== ws.OPEN) return;
  if (ws.bufferedAmount > maxBufferedBytes) {
    close(CloseCode.slowConsumer, `client fell more than ${maxBufferedBytes} bytes behind; reattach to resume`);
    return;
  }
  ws.send(data, { binary });
}

/** Ping every `intervalMs`; after two unanswered pings `dead` is called. Returns the cleanup. */
export function keepAlive(ws: WebSocket, intervalMs: number, dead: () => void): () => void {
  let missed = 0;
  const onPong = () => (missed = 0);
  ws.on('pong', onPong);
  const timer = setInterval(() => {
    if (missed >= 2) return dead();
    missed++;
    ws.ping();
  }, intervalMs);
  return () => {
    clearInterval(timer);
    ws.off('pong', onPong);
  };
}
