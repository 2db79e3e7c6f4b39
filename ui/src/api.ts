/**
 * The page's calls to the daemon's public API, authenticated by the sign-in cookie together with the page key
 * (docs/security.md): the browser sends the cookie, this code the key, which only pages of this origin can read.
 * Every failure becomes an ApiError carrying the server's code, or status 0 when the daemon could not be reached.
 */
import { UI_KEY_HEADER, UI_KEY_META, UI_KEY_STORAGE, UI_NEXT_META } from '../../src/protocol/uiKey.js';

/** The header that proves this page is the daemon's own, or nothing when this browser holds no key. */
export function keyHeader(): Record<string, string> {
  let key: string | null = null;
  try {
    key = localStorage.getItem(UI_KEY_STORAGE);
  } catch {
    /* storage disabled: the page is then signed out, as it would be without the key */
  }
  return key ? { [UI_KEY_HEADER]: key } : {};
}

/**
 * On the sign-in page, keep the key it carries and move the address bar on from the spent code. Returns false on any
 * other page.
 */
export function adoptSignIn(): boolean {
  const key = document.querySelector(`meta[name="${UI_KEY_META}"]`);
  const next = document.querySelector(`meta[name="${UI_NEXT_META}"]`);
  if (!key) return false;
  try {
    localStorage.setItem(UI_KEY_STORAGE, key.getAttribute('content') ?? '');
  } catch {
    /* storage disabled: nothing to keep, and the page will say it is not signed in */
  }
  key.remove();
  const to = next?.getAttribute('content') ?? '/ui/';
  next?.remove();
  history.replaceState(null, '', to.startsWith('/ui/') ? to : '/ui/');
  return true;
}

/** Forget the key (signing out). */
export function forgetKey(): void {
  try {
    localStorage.removeItem(UI_KEY_STORAGE);
  } catch {
    /* storage disabled: there is nothing to forget */
  }
}
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
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...keyHeader() },
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

/** Save what a GET answers as a file named `filename`, fetched with the page key like every other call. */
export async function download(path: string, filename: string): Promise<void> {
  const res = await fetch(path, { credentials: 'same-origin', headers: keyHeader() });
  if (!res.ok) {
    const b = (await res.json().catch(() => ({}))) as { error?: unknown };
    throw new ApiError(typeof b.error === 'string' ? b.error : `HTTP ${res.status}`, res.status, 'http_error', false);
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.click();
  // The browser has taken its copy once the click is handled; the URL only has to outlive that.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
