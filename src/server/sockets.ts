/**
 * The listening server's socket policy: how many connections the daemon holds at once, and which one gives way when
 * it is full. Each socket costs a file descriptor and buffers whether or not it ever sends a request, so idle ones
 * cannot be left to pile up (2,000 sockets that never send a byte are a one-line attack).
 *
 * A full table makes room by closing the least recently active idle socket: one with no request in flight (never
 * sent one, is still sending its headers, or is a keep-alive between requests). Requests in flight, event streams,
 * long polls and upgraded sockets are never closed for a newcomer; they have caps of their own (CONNECTION_LIMITS in
 * app.ts). Only when every socket is busy is the newcomer answered at once with a 503 `connection_limit`, before the
 * HTTP parser ever sees it. So a flood of idle sockets cannot lock people out, and a flood of real requests is told
 * to retry rather than left hanging.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

interface Tracked {
  /** Requests in flight on the socket (HTTP/1.1 pipelining allows more than one). */
  busy: number;
  /** Upgraded to a WebSocket: no longer HTTP, and never idle. */
  upgraded: boolean;
}

/** The answer to a connection past the cap when nothing can give way; written raw, the parser never sees it. */
function busyAnswer(max: number): string {
  const body = JSON.stringify({
    error: `${max} connections are open, the daemon's limit, and all of them are busy; try again shortly`,
    code: 'connection_limit',
    retryable: true,
    limit: 'sockets',
    max,
  });
  return `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n${body}`;
}

/** How long a refused socket may take to read its 503 before it is destroyed. */
const REFUSED_LINGER_MS = 1000;

export interface SocketPolicyEvents {
  /** An idle socket was closed to make room (the count since the last call, for a throttled log line). */
  evicted?: () => void;
  refused?: () => void;
}

/**
 * Hold at most `max` sockets on `server`. Must be applied before the server accepts a connection: it takes over the
 * server's 'connection' listeners (Node's HTTP parser among them) and calls them only for admitted sockets.
 */
export function capSockets(server: Server, max: number, on: SocketPolicyEvents = {}): { readonly open: number } {
  // Insertion order is activity order: a socket moves to the end whenever a request on it finishes.
  const open = new Map<Socket, Tracked>();
  const http = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');

  const makeRoom = (): boolean => {
    for (const [socket, t] of open) {
      if (t.busy === 0 && !t.upgraded) {
        open.delete(socket);
        socket.destroy();
        on.evicted?.();
        return true;
      }
    }
    return false;
  };

  server.on('connection', (socket: Socket) => {
    if (open.size >= max && !makeRoom()) {
      on.refused?.();
      // The peer may send its request before it reads the 503; the resulting reset is expected, not an error.
      socket.on('error', () => {});
      socket.end(busyAnswer(max));
      socket.setTimeout(REFUSED_LINGER_MS, () => socket.destroy());
      return;
    }
    open.set(socket, { busy: 0, upgraded: false });
    socket.once('close', () => open.delete(socket));
    for (const listener of http) listener.call(server, socket);
  });

  server.on('request', (req, res) => {
    const socket = req.socket;
    const t = open.get(socket);
    if (!t) return;
    t.busy++;
    res.once('close', () => {
      t.busy--;
      if (open.delete(socket)) open.set(socket, t); // most recently active now
    });
  });
  server.on('upgrade', (req) => {
    const t = open.get(req.socket);
    if (t) t.upgraded = true;
  });

  return {
    get open() {
      return open.size;
    },
  };
}
