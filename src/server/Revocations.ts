/**
 * Long-lived connections (attach sockets, event streams) register under the token that opened them; revoking the
 * token closes them at once.
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
  track(tokenName: string, close: () => void): () => void {
    let set = this.open.get(tokenName);
    if (!set) this.open.set(tokenName, (set = new Set()));
    set.add(close);
    return () => {
      set.delete(close);
      if (set.size === 0 && this.open.get(tokenName) === set) this.open.delete(tokenName);
    };
  }
}
