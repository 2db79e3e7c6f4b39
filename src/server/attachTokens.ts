/**
 * Attach tokens: short-lived HMAC-SHA256 credentials scoped to one session and one role, so a browser can attach
 * without ever holding the daemon's bearer token. The key is random per daemon process: a restart invalidates
 * outstanding tokens, which live 60 s anyway.
 *
 * Each token opens one socket. The daemon remembers the nonces it minted and not yet redeemed; redeeming forgets the
 * nonce, so a token copied from a log, a proxy or a page's memory cannot open a second socket. Remembering the unspent
 * ones (not the spent ones) keeps the table bounded in the safe direction: when it is full the oldest unspent token is
 * forgotten, and the worst that happens is that it no longer works.
 *
 * Format: "v1." + base64url(JSON payload) + "." + base64url(HMAC-SHA256(key, "v1." + payload)).
 */
import crypto from 'node:crypto';
import type { Actor } from '../core/index.js';
import type { Role } from '../protocol/attach.js';

export const ATTACH_TOKEN_TTL_S = 60;
/** Attach tokens minted and not yet used, at most; past this the oldest is forgotten (and no longer works). */
export const MAX_UNSPENT_ATTACH_TOKENS = 4096;

export interface AttachGrant {
  session: string;
  role: Role;
  /** Expiry, seconds since the epoch. */
  exp: number;
  /** The minter's actor, downgraded to a viewer for viewer tokens. */
  actor: Actor;
  /** The minter's token: revoking it invalidates this grant and closes sockets opened with it. */
  tokenName: string;
  tokenId: string;
  /** The browser sign-in that minted it (Principal.signIn): signing it out closes sockets opened with it. */
  signIn?: string;
}

const KINDS = new Set(['admin', 'human', 'agent', 'viewer']);

export class AttachTokens {
  private readonly key = crypto.randomBytes(32);
  /** Nonces of tokens minted and not yet redeemed, with their expiry (ms); insertion order is minting order. */
  private readonly unspent = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  mint(session: string, role: Role, actor: Actor, tokenName: string, tokenId: string = tokenName, signIn?: string): string {
    this.sweep();
    while (this.unspent.size >= MAX_UNSPENT_ATTACH_TOKENS) this.unspent.delete(this.unspent.keys().next().value!);
    const nonce = crypto.randomBytes(16).toString('hex');
    this.unspent.set(nonce, this.now() + ATTACH_TOKEN_TTL_S * 1000);
    const payload = Buffer.from(
      JSON.stringify({
        s: session,
        r: role,
        e: Math.floor(this.now() / 1000) + ATTACH_TOKEN_TTL_S,
        a: actor.name,
        k: role === 'viewer' ? 'viewer' : actor.kind,
        t: tokenName,
        i: tokenId,
        n: nonce,
        ...(signIn !== undefined ? { u: signIn } : {}),
      }),
    ).toString('base64url');
    return `v1.${payload}.${this.mac(`v1.${payload}`).toString('base64url')}`;
  }

  /**
   * Spend a token on one socket: the grant, or undefined for anything forged, malformed, expired, for another session
   * or already spent. A token refused for another session is not spent.
   */
  redeem(token: string, session: string): AttachGrant | undefined {
    const grant = this.check(token, session);
    if (!grant || !this.unspent.delete(grant.nonce)) return undefined;
    const { nonce: _spent, ...rest } = grant;
    return rest;
  }

  /**
   * What a token grants, without spending it or checking its session: who minted it (to find the session its socket
   * names, as that actor may see it). Undefined for anything forged, malformed or expired.
   */
  inspect(token: string): AttachGrant | undefined {
    const grant = this.check(token, undefined);
    if (!grant) return undefined;
    const { nonce: _nonce, ...rest } = grant;
    return rest;
  }

  private sweep(): void {
    const now = this.now();
    for (const [nonce, exp] of this.unspent) if (exp <= now) this.unspent.delete(nonce);
  }

  private check(token: string, session: string | undefined): (AttachGrant & { nonce: string }) | undefined {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== 'v1') return undefined;
    const given = Buffer.from(parts[2]!, 'base64url');
    const want = this.mac(`v1.${parts[1]}`);
    if (given.length !== want.length || !crypto.timingSafeEqual(given, want)) return undefined;
    let p: { s?: unknown; r?: unknown; e?: unknown; a?: unknown; k?: unknown; t?: unknown; i?: unknown; n?: unknown; u?: unknown };
    try {
      p = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as typeof p;
    } catch {
      return undefined;
    }
    if (typeof p.s !== 'string' || (p.r !== 'viewer' && p.r !== 'driver') || typeof p.e !== 'number') return undefined;
    if (typeof p.a !== 'string' || typeof p.k !== 'string' || !KINDS.has(p.k) || typeof p.t !== 'string' || typeof p.i !== 'string' || typeof p.n !== 'string') return undefined;
    if ((session !== undefined && p.s !== session) || p.e * 1000 <= this.now()) return undefined;
    if (p.u !== undefined && typeof p.u !== 'string') return undefined;
    return { session: p.s, role: p.r, exp: p.e, actor: { name: p.a, kind: p.k as Actor['kind'] }, tokenName: p.t, tokenId: p.i, nonce: p.n, ...(p.u !== undefined ? { signIn: p.u } : {}) };
  }

  private mac(data: string): Buffer {
    return crypto.createHmac('sha256', this.key).update(data).digest();
  }
}

/** The lesser of two roles: a request may downgrade what its credential allows, never upgrade it. */
export function lesserRole(a: Role, b: Role): Role {
  return a === 'viewer' || b === 'viewer' ? 'viewer' : 'driver';
}
