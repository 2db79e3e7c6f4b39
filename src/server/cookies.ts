/**
 * The UI's one cookie: its name, reading it from a Cookie header, and the Set-Cookie values that set and clear it.
 * Ten lines of parsing do not justify a cookie library.
 */

/**
 * Browsers scope cookies by host, not by port, so two daemons on one machine would overwrite each other's cookie.
 * The port is part of the name to keep them apart.
 */
export function uiCookieName(hostHeader: string | undefined): string {
  const port = /:(\d{1,5})$/.exec(hostHeader?.trim() ?? '')?.[1];
  return port ? `termhost_ui_${port}` : 'termhost_ui';
}

/** The value of the named cookie in a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * HttpOnly: scripts (ours included) never see it. SameSite=Strict: no other site's page or link sends it. Path=/:
 * the page's API requests and event stream carry it. No Secure flag: the daemon itself speaks plain HTTP on loopback.
 */
export function setUiCookie(name: string, secret: string, maxAgeS: number): string {
  return `${name}=${secret}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeS}`;
}

export function clearUiCookie(name: string): string {
  return `${name}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
}
