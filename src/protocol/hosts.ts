/**
 * Which host names are this machine's loopback: the daemon's Host check and listen policy (server/) and the client's
 * choice of which token it may send unasked (client/address.ts) read it the same way.
 */

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.', '::1', '0:0:0:0:0:0:0:1']);

/** A dotted IPv4 address in 127.0.0.0/8, each part 0-255 without leading zeros. */
const LOOPBACK_V4 = /^127\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  if (LOOPBACK_NAMES.has(h) || h.endsWith('.localhost')) return true;
  return LOOPBACK_V4.test(h);
}
