/**
 * The only place an error code becomes an HTTP status, and the one shape every error body has:
 * {"error": "...", "code": "...", "retryable": bool, ...extra}.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { TermError, type ErrorCode } from '../core/index.js';
import { ERROR_CATALOGUE, INPUT_STATUS } from '../protocol/errors.js';
import type { ErrorBody } from '../protocol/http.js';

/** Each code's HTTP status, from the one catalogue (protocol/errors.ts). */
export const STATUS = Object.fromEntries(Object.entries(ERROR_CATALOGUE).map(([code, spec]) => [code, spec.status])) as Record<ErrorCode, number>;

/**
 * The one code with two statuses: reading a session during a secret-input window is 423 (the screen is locked),
 * while sending input is 409 (only the session's state stands in the way: people may still type).
 */
export function statusOf(err: TermError): number {
  if (err.extra.refused === 'input') return INPUT_STATUS[err.code] ?? STATUS[err.code];
  return STATUS[err.code];
}

export function errorBody(err: TermError): ErrorBody {
  return { ...err.extra, error: err.message, code: err.code, retryable: err.retryable };
}

export function sendError(reply: FastifyReply, err: TermError): FastifyReply {
  if (reply.request.headers.upgrade) {
    // A refused WebSocket upgrade: the socket has left the HTTP server's care, so nothing else would ever close it.
    reply.header('connection', 'close');
    reply.raw.once('finish', () => reply.request.raw.socket?.destroy());
  }
  // A retryable refusal that knows when to come back says so the standard way too (rate limits).
  if (typeof err.extra.retry_after_s === 'number') reply.header('retry-after', String(err.extra.retry_after_s));
  return reply.code(statusOf(err)).send(errorBody(err));
}

/** Turn anything thrown inside fastify (validation, body parsing, our own TermErrors, bugs) into the error shape. */
export function toTermError(err: FastifyError | TermError | Error): TermError {
  if (err instanceof TermError) return err;
  const fe = err as FastifyError;
  if (fe.validation) {
    const first = fe.validation[0];
    const where = `${fe.validationContext ?? 'body'}${first?.instancePath ?? ''}`;
    const index = /^\/input\/(\d+)(?:\/|$)/.exec(first?.instancePath ?? '');
    if (index) {
      // ajv reports only the first alternative it tried; say what an item may be instead.
      return new TermError('invalid_request', `input[${index[1]}] must be exactly one of {"text"}, {"key"}, {"paste"} or {"raw"}, each a string`, {
        index: Number(index[1]),
      });
    }
    return new TermError('invalid_request', `${where} ${first?.message ?? 'is invalid'}`, validationDetail(fe.validationContext, first));
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new TermError('body_too_large', 'the request body is larger than the 1 MiB limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new TermError('invalid_request', 'send the body as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new TermError('invalid_json', 'the body is empty; send a JSON object (or omit Content-Type)');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new TermError('invalid_request', 'the Content-Length header does not match the body');
  }
  if (err instanceof SyntaxError || fe.statusCode === 400) {
    return new TermError('invalid_json', `the body is not valid JSON: ${err.message}`);
  }
  if (fe.statusCode === 413) return new TermError('body_too_large', 'the request body is larger than the 1 MiB limit');
  if (fe.statusCode === 404) return new TermError('not_found', err.message);
  return new TermError('internal', 'internal error; the daemon log has details');
}

/**
 * Which field failed and how, for clients that speak to people in their own words (the CLI names the flag that
 * filled the field): `in` (body, querystring, params), `field` (a JSON pointer), `constraint` (the JSON Schema
 * keyword) and its `limit` or `allowed` values.
 */
function validationDetail(context: string | undefined, first: NonNullable<FastifyError['validation']>[number] | undefined): Record<string, unknown> {
  if (!first) return {};
  const params = (first.params ?? {}) as Record<string, unknown>;
  const detail: Record<string, unknown> = { in: context ?? 'body', field: first.instancePath, constraint: first.keyword };
  if (typeof params.limit === 'number') detail.limit = params.limit;
  if (Array.isArray(params.allowedValues)) detail.allowed = params.allowedValues;
  if (typeof params.type === 'string') detail.type = params.type;
  return detail;
}

export function errorHandler(this: unknown, err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const te = toTermError(err);
  if (te.code === 'internal') req.log.error({ err }, 'unhandled error');
  void sendError(reply, te);
}
