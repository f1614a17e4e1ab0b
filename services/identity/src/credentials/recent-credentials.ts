import { TtlCache } from '@masthead/core/cache';
import { onEvent, type NatsLink } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { MemberChangeListener } from '../users/profile-cache.js';
import type { MemberCredentials } from './credential.repository.js';

/**
 * A member's credential versions as read moments ago, for the member path only: the session check
 * and the profile read of one GET /user read them one after the other (docs/adr/0216). Writes in
 * this process drop the member at once (the repositories call `changed`), other replicas' with
 * `member_access_changed`; the lifetime, within ADR 0042's bound on access decisions, covers a
 * lost announcement. Sign-in, password checks and every credential write read afresh.
 */
export class RecentCredentials implements MemberChangeListener {
  private readonly cache: TtlCache<number, MemberCredentials> | null;

  constructor(ttlMs: number) {
    this.cache = ttlMs > 0 ? new TtlCache(ttlMs, 50_000) : null;
  }

  read(userId: number, load: () => Promise<MemberCredentials>): Promise<MemberCredentials> {
    return this.cache ? this.cache.getOrLoad(userId, load) : load();
  }

  changed(userId: number): void {
    this.cache?.delete(userId);
  }

  listen(nats: NatsLink, logger: Logger): void {
    if (!this.cache) return;
    onEvent(nats, 'member_access_changed', logger, (event) => this.changed(event.payload.user_id));
  }
}
