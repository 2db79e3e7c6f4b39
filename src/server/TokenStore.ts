/**
 * Credentials and the actors they carry. The daemon's own token (generated or given with --token) is the `admin`
 * actor. Further tokens are created with a name, a role and optionally a scope (which sessions they may know of) and
 * the command profiles they may start; they are shown once, and stored only as SHA-256 hashes in
 * `<state dir>/tokens.json` (0600). Revoking one takes effect on the next request, and listeners close the sockets
 * and streams that were opened with it.
 *
 * tokens.json is `{"version": 2, "tokens": [...]}`. A file from before scopes (no version) is read as unscoped
 * tokens, which is what they were, and rewritten in the new form at once.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { TermError, fail, ok, parseScope, scopeToWire, type Result, type Scope, type WireScope } from '../core/index.js';
import type { Actor, Role } from '../core/index.js';
import { Bounds, NAME_PATTERN } from '../protocol/bounds.js';

export const ADMIN_TOKEN_NAME = 'admin';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const PROFILE_NAME = new RegExp(NAME_PATTERN);
/** The current tokens.json format. */
const FILE_VERSION = 2;

interface StoredToken {
  name: string;
  role: Role;
  sha256: string;
  created_at: string;
  /** Absent: unscoped. */
  scope?: WireScope;
  /** Absent: whatever the daemon allows. */
  profiles?: string[];
}

/** A stored token with its scope parsed once, at load or creation. */
interface Held extends StoredToken {
  parsedScope: Scope;
}

export interface Principal {
  actor: Actor;
  /** The token's name: revoking it ends everything opened with it. */
  tokenName: string;
  /** Identifies this very token (not its name, which can be reused after a revocation). */
  tokenId: string;
  /** A browser's sign-in (UiLogins), when the credential is its cookie: signing it out ends what it opened. */
  signIn?: string;
}

export interface TokenInfo {
  name: string;
  role: Role;
  created_at: string | null;
  /** null: every session. */
  scope: WireScope | null;
  /** null: whatever the daemon allows. */
  profiles: string[] | null;
}

export interface TokenGrant {
  /** The wire form (http.ts ScopeSchema), or untyped JSON from tokens.json: parsed and checked here. */
  scope?: unknown;
  /** Profile names (already checked against the schema at the edge; checked again here for tokens.json). */
  profiles?: string[];
}

/** Named tokens a daemon keeps at most (besides its own). */
export const MAX_NAMED_TOKENS = 1000;

const sha256 = (secret: string) => crypto.createHash('sha256').update(secret, 'utf8').digest();
const hash = (secret: string) => sha256(secret).toString('hex');

export class TokenStore {
  private readonly byHash = new Map<string, Held>();
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
    const { tokens, old } = this.load();
    for (const t of tokens) this.byHash.set(t.sha256, t);
    if (old) this.save();
  }

  /** The principal a presented secret stands for, or undefined. */
  resolve(secret: string | undefined): Principal | undefined {
    if (!secret) return undefined;
    // One hash of the presented secret serves both checks. Equal-length digests compare in constant time, and the
    // lookup key of the other tokens is the same hash, so timing reveals nothing usable about the secret itself.
    const digest = sha256(secret);
    if (crypto.timingSafeEqual(digest, this.adminDigest)) return { actor: adminActor(), tokenName: ADMIN_TOKEN_NAME, tokenId: ADMIN_TOKEN_NAME };
    const t = this.byHash.get(digest.toString('hex'));
    return t ? { actor: actorOfToken(t), tokenName: t.name, tokenId: idOf(t) } : undefined;
  }

  /**
   * The actor a credential derived from a token stands for (a UI sign-in, an attach token), with that token's scope
   * as it is now; undefined once the token is revoked. `kind` may be lower than the token's role (a
   * viewer sign-in minted by a person).
   */
  actorOf(tokenId: string, name: string, kind: Actor['kind']): Actor | undefined {
    if (tokenId === ADMIN_TOKEN_NAME) return { ...adminActor(), name, kind };
    const t = this.byId(tokenId);
    return t && { ...actorOfToken(t), name, kind };
  }

  /** Is this very token (by id, so a re-created name does not count) still valid? */
  isLive(tokenId: string): boolean {
    return tokenId === ADMIN_TOKEN_NAME || this.byId(tokenId) !== undefined;
  }

  private byId(tokenId: string): Held | undefined {
    if (tokenId.length !== 16) return undefined;
    for (const t of this.byHash.values()) if (t.sha256.startsWith(tokenId)) return t;
    return undefined;
  }

  create(name: string, role: Role, grant: TokenGrant = {}): Result<{ token: string; info: TokenInfo }> {
    if (!NAME.test(name)) return fail(new TermError('invalid_request', 'a token name is 1-64 letters, digits, dots, dashes or underscores'));
    const scope = parseScope(grant.scope);
    if (!scope.ok) return scope;
    const profiles = grant.profiles;
    if (profiles !== undefined && (!Array.isArray(profiles) || profiles.length < 1 || profiles.length > Bounds.tokenProfilesMax || !profiles.every((p) => typeof p === 'string' && PROFILE_NAME.test(p)))) {
      return fail(new TermError('invalid_request', `profiles must list 1 to ${Bounds.tokenProfilesMax} profile names`, { field: 'profiles' }));
    }
    // An admin mints tokens, so a scope or profile list on one would hold nothing: it could mint itself a free one.
    if (role === 'admin' && (scope.value.kind !== 'all' || profiles !== undefined)) {
      return fail(new TermError('invalid_request', 'an admin token cannot be scoped or limited to profiles (it could mint itself a token that is not); give it a lower role', { field: scope.value.kind !== 'all' ? 'scope' : 'profiles' }));
    }
    if (name === ADMIN_TOKEN_NAME || [...this.byHash.values()].some((t) => t.name === name)) {
      return fail(new TermError('token_exists', `a token named "${name}" already exists; revoke it first or pick another name`));
    }
    if (this.byHash.size >= this.maxTokens) {
      return fail(new TermError('token_limit', `there are ${this.byHash.size} named tokens, the limit; revoke one first`, { max: this.maxTokens }));
    }
    const token = `th_${crypto.randomBytes(32).toString('base64url')}`;
    const wire = scopeToWire(scope.value);
    const stored: Held = {
      name,
      role,
      sha256: hash(token),
      created_at: new Date().toISOString(),
      ...(wire ? { scope: wire } : {}),
      ...(profiles ? { profiles: [...new Set(profiles)] } : {}),
      parsedScope: scope.value,
    };
    this.byHash.set(stored.sha256, stored);
    this.save();
    return ok({ token, info: infoOf(stored) });
  }

  list(): TokenInfo[] {
    return [{ name: ADMIN_TOKEN_NAME, role: 'admin' as Role, created_at: null, scope: null, profiles: null }, ...[...this.byHash.values()].map(infoOf)];
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

  /** The file's tokens; `old` when it is in the format from before scopes and should be rewritten. */
  private load(): { tokens: Held[]; old: boolean } {
    if (!this.file) return { tokens: [], old: false };
    let parsed: { version?: number; tokens?: StoredToken[] };
    try {
      parsed = JSON.parse(fs.readFileSync(this.file, 'utf8')) as typeof parsed;
    } catch {
      return { tokens: [], old: false }; // no file yet
    }
    const tokens: Held[] = [];
    for (const t of parsed.tokens ?? []) {
      if (typeof t.name !== 'string' || typeof t.sha256 !== 'string') continue;
      const scope = parseScope(t.scope);
      // A scope that no longer parses must not widen to "everything": the token is left out, and says why.
      if (!scope.ok) {
        process.emitWarning(`tokens.json: token "${t.name}" has an unreadable scope and is not loaded: ${scope.error.message}`);
        continue;
      }
      tokens.push({ ...t, parsedScope: scope.value });
    }
    return { tokens, old: parsed.version !== FILE_VERSION };
  }

  private save(): void {
    if (!this.file) return;
    const tmp = `${this.file}.tmp`;
    const tokens: StoredToken[] = [...this.byHash.values()].map(({ parsedScope: _parsed, ...t }) => t);
    fs.writeFileSync(tmp, JSON.stringify({ version: FILE_VERSION, tokens }, null, 2), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }
}

function adminActor(): Actor {
  return { name: ADMIN_TOKEN_NAME, kind: 'admin', owner: ADMIN_TOKEN_NAME };
}

const idOf = (t: StoredToken) => t.sha256.slice(0, 16);

function actorOfToken(t: Held): Actor {
  return { name: t.name, kind: t.role, scope: t.parsedScope, owner: idOf(t), ...(t.profiles ? { profiles: t.profiles } : {}) };
}

function infoOf(t: StoredToken): TokenInfo {
  return { name: t.name, role: t.role, created_at: t.created_at, scope: t.scope ?? null, profiles: t.profiles ?? null };
}
