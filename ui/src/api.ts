/**
 * The page's calls to the daemon's public API, authenticated by the sign-in cookie (same origin only). Every failure
 * becomes an ApiError carrying the server's code, or status 0 when the daemon could not be reached at all.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly retryable: boolean,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(`cannot reach the termhost daemon (${(err as Error).message})`, 0, 'unreachable', true);
  }
  const text = await res.text().catch(() => '');
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (res.ok) return parsed as T;
  const b = (parsed && typeof parsed === 'object' ? parsed : {}) as Record<string, unknown>;
  throw new ApiError(typeof b.error === 'string' ? b.error : `HTTP ${res.status}`, res.status, typeof b.code === 'string' ? b.code : 'http_error', b.retryable === true, b);
}

export const enc = encodeURIComponent;
