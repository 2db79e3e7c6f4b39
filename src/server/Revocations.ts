/**
 * Long-lived connections (attach sockets, event streams) register under the token that opened them, and under the
 * browser sign-in when a UI cookie opened them; revoking the token, or signing the browser out (or its sign-in
 * expiring), closes them at once.
 */
import type { TokenStore } from './TokenStore.js';

export class Revocations {
  private readonly open = new Map<string, Set<() => void>>();

  constructor(tokens: TokenStore) {
    tokens.onRevoke((name) => {
      for (const close of [...(this.open.get(name) ?? [])]) close();
      this.open.delete(name);
    });
  }

  /** Register a connection; call the returned function when it ends. */
  track(tokenName: string, close: () => void, signIn?: string): () => void {
    const untrack = [this.add(tokenName, close)];
    if (signIn !== undefined) untrack.push(this.add(signInKey(signIn), close));
    return () => {
      for (const u of untrack) u();
    };
  }

  /** These browser sign-ins ended (signed out, all signed out, expired): close what they opened. */
  signedOut(signIns: readonly string[]): void {
    for (const id of signIns) {
      const key = signInKey(id);
      for (const close of [...(this.open.get(key) ?? [])]) close();
      this.open.delete(key);
    }
  }

  private add(key: string, close: () => void): () => void {
    let set = this.open.get(key);
    if (!set) this.open.set(key, (set = new Set()));
    set.add(close);
    return () => {
      set.delete(close);
      if (set.size === 0 && this.open.get(key) === set) this.open.delete(key);
    };
  }
}

/** Token names never hold a NUL, so a sign-in's key cannot collide with a token's. */
const signInKey = (id: string) => `\u0000sign-in:${id}`;
