/**
 * What the request log may say about a request. URLs are logged, and no URL carries a token, but the UI's sign-in link
 * carries a login code: single-use and short-lived, yet still a credential until it is spent, so it is cut out.
 */
import type { FastifyRequest } from 'fastify';

export function redactUrl(url: string): string {
  return url.replace(/([?&]code=)[^&#]*/gi, '$1[redacted]');
}

/** fastify's own request serializer, with the URL redacted. */
export function requestSerializer(req: FastifyRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket ? req.socket.remotePort : undefined,
  };
}

/** pino options with the request serializer added (false stays false: no logging). */
export function withRedaction(logger: boolean | Record<string, unknown> | undefined): boolean | Record<string, unknown> {
  if (!logger) return false;
  const base = logger === true ? {} : logger;
  const serializers = (base.serializers ?? {}) as Record<string, unknown>;
  return { ...base, serializers: { ...serializers, req: requestSerializer } };
}
