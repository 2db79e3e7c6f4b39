/**
 * Browser sign-in for the UI. Someone holding a `human` or `admin` bearer token mints a login code (single use, 60 s);
 * the browser trades it once for a cookie session, and from then on the cookie stands for the UI's actor: a person
 * (`human`) or a `viewer`, named after the token that minted the code.
 *
 * Codes live only in memory. Cookie sessions are kept as SHA-256 hashes of their secrets in
 * `<state-dir>/ui-logins.json` (0600), so a browser stays signed in across a daemon restart, which is when a person
 * most wants to look at what happened. Both are bounded, and a full table drops its oldest entry: losing the oldest
 * pending code or browser sign-in is better than refusing the newest.
 *
 * A cookie session ends when it expires (12 h after sign-in), when the browser signs out, when the token that minted
 * its code is revoked, or when the daemon's own token changes.
 *
 * The cookie alone does not authenticate. Browsers send a host's cookies to every port of that host, so a web server
 * another local user runs on a loopback port receives it. Each sign-in therefore has a second secret, its page key,
 * handed over once in the sign-in page itself and kept by the page's script in localStorage, which browsers keep per
 * origin (scheme, host and port): only a page served by this daemon can read it and send it back as a header.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Principal, TokenStore } from './TokenStore.js';

/** How long a login code may wait to be exchanged. It sits in a URL, so it is short-lived and single-use. */
export const LOGIN_CODE_TTL_MS = 60_000;
/** Login codes outstanding at once; past this the oldest is dropped. */
export const MAX_LOGIN_CODES = 32;
/** A browser's sign-in lasts a working day, counted from the sign-in, however active the browser is. */
export const UI_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Browsers signed in at once; past this the one that signed in first is signed out. */
export const MAX_UI_SESSIONS = 64;
/** How often expired sign-ins are looked for, so the sockets and streams they opened close. */
const SWEEP_INTERVAL_MS = 60_000;

export type UiActorKind = 'human' | 'viewer';

interface Grant {
  /** The UI actor's name: the name of the token that minted the code. */
  name: string;
  kind: UiActorKind;
  /** The minting token; revoking it signs the browser out. */
  tokenName: string;
  tokenId: string;
}

interface PendingCode extends Grant {
  expiresAt: number;
  /** Where the browser lands after signing in: a path under /ui/, never carrying a secret. */
  next: string;
}

interface StoredSession extends Grant {
  sha256: string;
  /** SHA-256 of the page key the browser must send beside the cookie. */
  key_sha256: string;
  created_at: string;
  expires_at: string;
}

interface StoredFile {
  /** Identifies the daemon token the sessions were created under; another token means nobody is signed in. */
  daemon: string;
  sessions: StoredSession[];
}

const sha256 = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');

export class UiLogins {
  /** By the SHA-256 of the code, so a lookup's timing says nothing about any stored code. */
  private readonly codes = new Map<string, PendingCode>();
  /** By the SHA-256 of the cookie secret; insertion order is sign-in order. */
  private readonly sessions = new Map<string, StoredSession>();
  private readonly file: string | undefined;
  private readonly daemon: string;
  private readonly offRevoke: () => void;
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;
  /** Told which sign-ins ended (by their ids, the hashes), so the connections they opened close too. */
  onSignedOut: (signIns: string[]) => void = () => undefined;

  constructor(
    private readonly tokens: TokenStore,
    opts: { stateDir?: string; daemonToken: string; now?: () => number },
  ) {
    this.now = opts.now ?? Date.now;
    this.file = opts.stateDir ? path.join(opts.stateDir, 'ui-logins.json') : undefined;
    // Not the token itself: a hash of it, salted by purpose so it matches nothing else stored anywhere.
    this.daemon = sha256(`termhost-ui:${opts.daemonToken}`).slice(0, 32);
    for (const s of this.load()) this.sessions.set(s.sha256, s);
    // Sign-ins expire while their pages stay open: what they opened closes within a minute of the expiry.
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
    this.offRevoke = tokens.onRevoke((name) => {
      let changed = false;
      for (const [k, s] of this.sessions) {
        if (s.tokenName === name) changed = this.sessions.delete(k);
      }
      for (const [k, c] of this.codes) if (c.tokenName === name) this.codes.delete(k);
      if (changed) this.save();
    });
  }

  /** A new login code for the bearer of `principal`; the browser that presents it signs in as `kind`. */
  mintCode(principal: Principal, kind: UiActorKind, next: string): { code: string; expiresInS: number } {
    this.sweep();
    while (this.codes.size >= MAX_LOGIN_CODES) this.codes.delete(this.codes.keys().next().value!);
    const code = crypto.randomBytes(32).toString('base64url');
    this.codes.set(sha256(code), {
      name: principal.actor.name,
      kind,
      tokenName: principal.tokenName,
      tokenId: principal.tokenId,
      expiresAt: this.now() + LOGIN_CODE_TTL_MS,
      next,
    });
    return { code, expiresInS: LOGIN_CODE_TTL_MS / 1000 };
  }

  /**
   * Spend a code: the new cookie secret, the page key and where to go, or undefined for a wrong, used or expired code.
   */
  exchange(code: string): { secret: string; key: string; next: string; maxAgeS: number; actor: { name: string; kind: UiActorKind } } | undefined {
    const codeHash = sha256(code);
    const pending = this.codes.get(codeHash);
    this.codes.delete(codeHash); // single use, whatever happens next
    if (!pending || pending.expiresAt <= this.now() || !this.tokens.isLive(pending.tokenId)) return undefined;
    this.sweep();
    const dropped: string[] = [];
    while (this.sessions.size >= MAX_UI_SESSIONS) {
      const oldest = this.sessions.keys().next().value!;
      this.sessions.delete(oldest);
      dropped.push(oldest);
    }
    if (dropped.length > 0) this.onSignedOut(dropped);
    const secret = crypto.randomBytes(32).toString('base64url');
    const key = crypto.randomBytes(32).toString('base64url');
    const { name, kind, tokenName, tokenId } = pending;
    const now = this.now();
    this.sessions.set(sha256(secret), {
      sha256: sha256(secret),
      key_sha256: sha256(key),
      name,
      kind,
      tokenName,
      tokenId,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + UI_SESSION_TTL_MS).toISOString(),
    });
    this.save();
    return { secret, key, next: pending.next, maxAgeS: UI_SESSION_TTL_MS / 1000, actor: { name, kind } };
  }

  /** The principal a cookie secret and its page key stand for together, or undefined. */
  resolve(secret: string | undefined, key: string | undefined): Principal | undefined {
    if (!secret || !key) return undefined;
    const s = this.sessions.get(sha256(secret));
    // Both are hashes of the same length, so the comparison's time says nothing about the stored one.
    if (!s || !crypto.timingSafeEqual(Buffer.from(s.key_sha256, 'hex'), Buffer.from(sha256(key), 'hex'))) return undefined;
    // The minting token's scope, as it is now, goes with the browser: a scoped token's sign-in sees what it sees.
    const actor = Date.parse(s.expires_at) > this.now() ? this.tokens.actorOf(s.tokenId, s.name, s.kind) : undefined;
    if (!actor) {
      this.sessions.delete(s.sha256);
      this.save();
      this.onSignedOut([s.sha256]);
      return undefined;
    }
    return { actor, tokenName: s.tokenName, tokenId: s.tokenId, signIn: s.sha256 };
  }

  /** When the sign-in behind this cookie secret ends, or undefined. */
  expiresAt(secret: string): string | undefined {
    return this.sessions.get(sha256(secret))?.expires_at;
  }

  /** Sign one browser out. */
  signOut(secret: string): boolean {
    const id = sha256(secret);
    const removed = this.sessions.delete(id);
    if (removed) {
      this.save();
      this.onSignedOut([id]);
    }
    return removed;
  }

  /** Sign every browser out and forget every pending code; returns how many browsers were signed in. */
  signOutAll(): number {
    this.sweep();
    const ids = [...this.sessions.keys()];
    this.sessions.clear();
    this.codes.clear();
    this.save();
    this.onSignedOut(ids);
    return ids.length;
  }

  get counts(): { codes: number; sessions: number } {
    return { codes: this.codes.size, sessions: this.sessions.size };
  }

  dispose(): void {
    clearInterval(this.sweeper);
    this.offRevoke();
  }

  private sweep(): void {
    const now = this.now();
    for (const [k, c] of this.codes) if (c.expiresAt <= now) this.codes.delete(k);
    const expired: string[] = [];
    for (const [k, s] of this.sessions) if (Date.parse(s.expires_at) <= now && this.sessions.delete(k)) expired.push(k);
    if (expired.length > 0) {
      this.save();
      this.onSignedOut(expired);
    }
  }

  private load(): StoredSession[] {
    if (!this.file) return [];
    let parsed: Partial<StoredFile>;
    try {
      parsed = JSON.parse(fs.readFileSync(this.file, 'utf8')) as Partial<StoredFile>;
    } catch {
      return []; // no file yet, or a damaged one: nobody is signed in
    }
    if (parsed.daemon !== this.daemon || !Array.isArray(parsed.sessions)) return [];
    const now = this.now();
    return parsed.sessions
      .filter(
        (s) =>
          typeof s.sha256 === 'string' &&
          // A sign-in from before page keys has none to check: it has to sign in again.
          typeof s.key_sha256 === 'string' &&
          /^[0-9a-f]{64}$/.test(s.key_sha256) &&
          typeof s.name === 'string' &&
          (s.kind === 'human' || s.kind === 'viewer') &&
          typeof s.tokenName === 'string' &&
          typeof s.tokenId === 'string' &&
          Date.parse(s.expires_at) > now &&
          this.tokens.isLive(s.tokenId),
      )
      .slice(-MAX_UI_SESSIONS);
  }

  private save(): void {
    if (!this.file) return;
    const body: StoredFile = { daemon: this.daemon, sessions: [...this.sessions.values()] };
    const tmp = `${this.file}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(body, null, 2), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }
}
