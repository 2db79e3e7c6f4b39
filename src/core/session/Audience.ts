/**
 * The people and programs attached to one session: counted by role, and the banners meant for them. A banner
 * published while nobody is attached is kept (up to 64, oldest dropped) and replayed to every later client, so a
 * session that failed before anyone looked still explains itself.
 */
import { actorRef, type Actor } from '../control/actor.js';

export type ClientRole = 'viewer' | 'driver';

/** A live attach client, as the runtime counts it (the transport lives in the server). */
export interface AttachedClient {
  readonly id: number;
  readonly role: ClientRole;
  readonly actor: Actor;
  detach(): void;
}

export const MAX_RETAINED_BANNERS = 64;

export class Audience {
  private readonly clients = new Set<AttachedClient>();
  private nextId = 1;
  private retained: string[] = [];

  constructor(
    private readonly on: {
      attached(c: AttachedClient): void;
      detached(c: AttachedClient): void;
      banner(message: string): void;
    },
  ) {}

  attach(role: ClientRole, actor: Actor): AttachedClient {
    const client: AttachedClient = {
      id: this.nextId++,
      role,
      actor: actorRef(actor),
      detach: () => {
        if (this.clients.delete(client)) this.on.detached(client);
      },
    };
    this.clients.add(client);
    this.on.attached(client);
    return client;
  }

  get counts(): { viewers: number; drivers: number } {
    let viewers = 0;
    for (const c of this.clients) if (c.role === 'viewer') viewers++;
    return { viewers, drivers: this.clients.size - viewers };
  }

  publish(message: string): void {
    if (this.clients.size > 0) return this.on.banner(message);
    this.retained.push(message);
    if (this.retained.length > MAX_RETAINED_BANNERS) this.retained.splice(0, this.retained.length - MAX_RETAINED_BANNERS);
  }

  /** A notice about the present moment (someone joined, input paused): for whoever is attached now, never replayed. */
  notify(message: string): void {
    if (this.clients.size > 0) this.on.banner(message);
  }

  get retainedBanners(): readonly string[] {
    return this.retained;
  }

  detachAll(): void {
    for (const c of [...this.clients]) c.detach();
  }
}
