/**
 * Credentials and the actors they carry. The daemon's own token (generated or given with --token) is the `admin`
 * actor. Further tokens are created with a name and a role, shown once, and stored only as SHA-256 hashes in
 * `<state dir>/tokens.json` (0600). Revoking one takes effect on the next request, and listeners close the sockets
 * and streams that were opened with it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { TermError, fail, ok, type Result } from '../core/index.js';
import type { Actor, Role } from '../core/index.js';

export const ADMIN_TOKEN_NAME = 'admin';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

interface StoredToken {
  name: string;
  role: Role;
  sha256: string;
  created_at: string;
}

export interface Principal {
  actor: Actor;
  /** The token's name: revoking it ends everything opened with it. */
  tokenName: string;
  /** Identifies this very token (not its name, which can be reused after a revocation). */
  tokenId: string;
}

export interface TokenInfo {
  name: string;
  role: Role;
  created_at: string | null;
}

/** Named tokens a daemon keeps at most (besides its own). */
export const MAX_NAMED_TOKENS = 1000;

const sha256 = (secret: string) => crypto.createHash('sha256').update(secret, 'utf8').digest();
const hash = (secret: string) => sha256(secret).toString('hex');

export class TokenStore {
  private readonly byHash = new Map<string, StoredToken>();
  private readonly revokeListeners = new Set<(name: string) => void>();
  private readonly file: string | undefined;
  /** Hashed once: every request's secret is hashed and compared with it in constant time. */
  private readonly adminDigest: Buffer;

  constructor(
    adminToken: string,
    stateDir?: string,
    /** Named tokens kept at most (each is a line in tokens.json and a lookup entry). */
    private readonly maxTokens = MAX_NAMED_TOKENS,
  ) {
    this.adminDigest = sha256(adminToken);
    this.file = stateDir ? path.join(stateDir, 'tokens.json') : undefined;
    for (const t of this.load()) this.byHash.set(t.sha256, t);
  }

  /** The principal a presented secret stands for, or undefined. */
  resolve(secret: string | undefined): Principal | undefined {
    if (!secret) return undefined;
    // One hash of the presented secret serves both checks. Equal-length digests compare in constant time, and the
    // lookup key of the other tokens is the same hash, so timing reveals nothing usable about the secret itself.
    const digest = sha256(secret);
    if (crypto.timingSafeEqual(digest, this.adminDigest)) return { actor: { name: ADMIN_TOKEN_NAME, kind: 'admin' }, tokenName: ADMIN_TOKEN_NAME, tokenId: ADMIN_TOKEN_NAME };
    const t = this.byHash.get(digest.toString('hex'));
    return t ? { actor: { name: t.name, kind: t.role }, tokenName: t.name, tokenId: t.sha256.slice(0, 16) } : undefined;
  }

  /** Is this very token (by id, so a re-created name does not count) still valid? */
  isLive(tokenId: string): boolean {
    if (tokenId === ADMIN_TOKEN_NAME) return true;
    for (const t of this.byHash.values()) if (t.sha256.startsWith(tokenId) && tokenId.length === 16) return true;
    return false;
  }

  create(name: string, role: Role): Result<{ token: string; info: TokenInfo }> {
    if (!NAME.test(name)) return fail(new TermError('invalid_request', 'a token name is 1-64 letters, digits, dots, dashes or underscores'));
    if (name === ADMIN_TOKEN_NAME || [...this.byHash.values()].some((t) => t.name === name)) {
      return fail(new TermError('token_exists', `a token named "${name}" already exists; revoke it first or pick another name`));
    }
    if (this.byHash.size >= this.maxTokens) {
      return fail(new TermError('token_limit', `there are ${this.byHash.size} named tokens, the limit; revoke one first`, { max: this.maxTokens }));
    }
    const token = `th_${crypto.randomBytes(32).toString('base64url')}`;
    const stored: StoredToken = { name, role, sha256: hash(token), created_at: new Date().toISOString() };
    this.byHash.set(stored.sha256, stored);
    this.save();
    return ok({ token, info: { name, role, created_at: stored.created_at } });
  }

  list(): TokenInfo[] {
    return [
      { name: ADMIN_TOKEN_NAME, role: 'admin' as Role, created_at: null },
      ...[...this.byHash.values()].map((t) => ({ name: t.name, role: t.role, created_at: t.created_at })),
    ];
  }

  revoke(name: string): Result<void> {
    if (name === ADMIN_TOKEN_NAME) return fail(new TermError('invalid_request', 'the daemon token cannot be revoked; restart with a new --token or delete the token file'));
    const found = [...this.byHash.values()].find((t) => t.name === name);
    if (!found) return fail(new TermError('token_not_found', `no token named "${name}"`));
    this.byHash.delete(found.sha256);
    this.save();
    for (const l of [...this.revokeListeners]) l(name);
    return ok(undefined);
  }

  onRevoke(listener: (name: string) => void): () => void {
    this.revokeListeners.add(listener);
    return () => this.revokeListeners.delete(listener);
  }

  private load(): StoredToken[] {
    if (!this.file) return [];
    try {
      const parsed = JSON.parse(fs.readFileSync(this.file, 'utf8')) as { tokens?: StoredToken[] };
      return (parsed.tokens ?? []).filter((t) => typeof t.name === 'string' && typeof t.sha256 === 'string');
    } catch {
      return []; // no file yet
    }
  }

  private save(): void {
    if (!this.file) return;
    const tmp = `${this.file}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ tokens: [...this.byHash.values()] }, null, 2), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }
}
