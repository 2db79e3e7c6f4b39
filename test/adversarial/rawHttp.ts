/**
 * HTTP over a bare TCP socket, for attacks that depend on the exact bytes of a request: fetch and node:http normalise
 * or refuse request targets such as `/v1/sessions/ID#/attach`, so they cannot send what an adversary sends.
 */
import net from 'node:net';

export interface RawAnswer {
  /** 0 when the server closed the socket without an answer. */
  status: number;
  headers: Record<string, string>;
  /** Everything after the header block (chunk framing left in: tests look for leaked text). */
  body: string;
  /** True when the answer was still open at the deadline (an event stream, a long poll, a WebSocket). */
  timedOut: boolean;
}

/** host:port -> connect options. */
export function target(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  return { host: address.slice(0, colon), port: Number(address.slice(colon + 1)) };
}

/**
 * Send `head` (request line and headers, without the blank line) and `body`, read until the server closes or the
 * deadline passes. `Connection: close` is added, unless `head` has a Connection header, so a normal answer ends the read.
 */
export function rawHttp(address: string, head: string, body = '', timeoutMs = 3000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect(target(address));
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (timedOut: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(chunks).toString('latin1'), timedOut));
    };
    const timer = setTimeout(() => finish(true), timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => finish(false));
    socket.on('close', () => finish(false));
    socket.on('error', () => finish(false));
    const length = body ? `Content-Length: ${Buffer.byteLength(body)}\r\n` : '';
    const connection = /\r\nconnection:/i.test(head) ? '' : 'Connection: close\r\n';
    socket.write(`${head}\r\n${connection}${length}\r\n${body}`);
  });
}

export function parseAnswer(text: string, timedOut = false): RawAnswer {
  const end = text.indexOf('\r\n\r\n');
  const headBlock = end >= 0 ? text.slice(0, end) : text;
  const [statusLine = '', ...lines] = headBlock.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, body: end >= 0 ? text.slice(end + 4) : '', timedOut };
}
