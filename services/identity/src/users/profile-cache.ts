import { PartitionedReadCache } from '@masthead/core/cache';
import { onEvent, type NatsLink } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';

/**
 * Catalog's membership writes; each carries the member in `user_id` (ADR 0043). Renewals, endings
 * (refunds, lapses) and changes of terms move what a member holds as much as the member's own
 * changes do: a sign-in's entitlement token reads this cache (docs/adr/0246).
 */
const MEMBERSHIP_EVENTS = [
  'membership_created',
  'membership_renewal_changed',
  'membership_detached',
  'membership_renewed',
  'membership_ended',
  'membership_changed',
] as const;

/** Told of every write of a user or of its relationships (the repositories call it). */
export interface MemberChangeListener {
  changed(userId: number): void;
}

/**
 * What GET /user and a sign-in show of a member, kept per user (partition) and resource (key),
 * ADR 0191: the profile identity assembles from its own records, catalog's memberships and
 * community's member summary, which otherwise cost two hops and four to six queries a read.
 *
 * - Identity's own writes drop the user's entries at once: the user and relationship
 *   repositories call `changed` from every write method, so no write path can forget it.
 * - Other replicas' writes arrive as `member_access_changed` (ADR 0042), catalog's as its
 *   membership events (and `catalog_updated`: the views of its resource carry plan and pricing
 *   fields, so every entry of that resource goes, by moving the resource to a new generation of
 *   keys), community's as `member_summary_changed`; plain NATS, typically within a millisecond.
 * - An entry lives at most `ttlMs`, which bounds what a lost event leaves stale. The session check
 *   (Authenticate) never reads from here: access decisions stay within ADR 0042's bound.
 *
 * A read that started before a change stores its answer in the dropped generation, so it is never
 * served after the change. `ttlMs` 0 turns the cache off (the test kit does, as for ADR 0042).
 */
export class ProfileCache implements MemberChangeListener {
  private readonly cache: PartitionedReadCache<number> | null;
  /** Bumped by `catalog_updated`: entries stored under an older generation are never read again. */
  private readonly resourceGenerations = new Map<number, number>();

  constructor(ttlMs: number) {
    // Per user: a profile and a resource view for each of a few resources.
    this.cache = ttlMs > 0 ? new PartitionedReadCache<number>(ttlMs, 50_000, 8) : null;
  }

  /**
   * The user's `kind` entry in the resource (0: none), loaded once while neither changes.
   * Callers must not mutate it.
   */
  read<T>(userId: number, resourceId: number, kind: 'profile' | 'view', load: () => Promise<T>): Promise<T> {
    if (!this.cache) return load();
    return this.cache.read(userId, `${kind}:${resourceId}:${this.resourceGenerations.get(resourceId) ?? 0}`, load);
  }

  changed(userId: number): void {
    this.cache?.invalidate(userId);
  }

  listen(nats: NatsLink, logger: Logger): void {
    if (!this.cache) return;
    const cache = this.cache;
    onEvent(nats, 'member_access_changed', logger, (event) => cache.invalidate(event.payload.user_id));
    for (const name of MEMBERSHIP_EVENTS) onEvent(nats, name, logger, (event) => cache.invalidate(event.payload.user_id));
    onEvent(nats, 'member_summary_changed', logger, (event) => {
      for (const userId of event.payload.user_ids) cache.invalidate(userId);
    });
    onEvent(nats, 'catalog_updated', logger, (event) => {
      if (typeof event.resource_id !== 'number') return cache.clear();
      this.resourceGenerations.set(event.resource_id, (this.resourceGenerations.get(event.resource_id) ?? 0) + 1);
    });
  }
}
