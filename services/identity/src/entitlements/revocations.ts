import { REVOCATION_LIST_TYPE } from '@masthead/entitlements';
import { onEvent, type EventListener, type NatsLink } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { ResourceDirectory } from '@masthead/core/resources';
import type { AccessEndings } from '../sessions/access-announcer.js';
import type { EntitlementTiming } from './entitlements.config.js';
import { entitlementSigningUnavailable } from './entitlements.errors.js';
import type { RevocationRepository } from './revocation.repository.js';
import type { RevocationRecord } from './revocation.schema.js';
import type { SigningKeys } from './signing-keys.js';

/**
 * Catalog's events after which a member's earlier tokens may list a membership it no longer holds
 * (or whose end moved): a refund, a lapse, a downgrade, a detachment, a change of terms.
 */
const MEMBERSHIP_ENDINGS = ['membership_ended', 'membership_detached', 'membership_changed'] as const;

export interface SignedRevocationList {
  token: string;
  maxAgeSeconds: number;
}

interface RevocationsDeps {
  repository: RevocationRepository;
  keys: SigningKeys;
  resources: ResourceDirectory;
  timing: EntitlementTiming;
  issuer: string;
  clock: () => number;
  logger: Logger;
}

/**
 * The revocation lists (docs/adr/0248). A token's lifetime bounds every revocation; these lists
 * let edges that fetch them refuse sooner. Entries come from where access ends: identity's own
 * session endings and relationship changes (through the access announcer, on the replica that
 * made them) and catalog's membership endings and community's summary changes (as events, on
 * every replica alike). An entry says "tokens of this session (or member) issued at or before
 * this second are stale", so a member who still may hold something gets a new token at once.
 * Recording is best effort: a failed write is logged, and the lifetime still bounds it.
 */
export class Revocations implements AccessEndings {
  private readonly listeners: EventListener[] = [];

  constructor(private readonly deps: RevocationsDeps) {}

  sessionEnded(session: { _id: number; resource_id: number }): void {
    if (session.resource_id) this.record('session', session.resource_id, session._id, this.deps.clock());
  }

  /** `resourceId` null: the change concerns every resource of the member. */
  memberChanged(userId: number, resourceId: number | null): void {
    this.record('member', resourceId ?? 0, userId, this.deps.clock());
  }

  listen(nats: NatsLink, logger: Logger): void {
    for (const name of MEMBERSHIP_ENDINGS) {
      this.listeners.push(
        onEvent(nats, name, logger, (event) => {
          // The event's own time: every replica writes the same entry.
          this.record('member', event.resource_id ?? 0, event.payload.user_id, Date.parse(event.occurred_at));
        }),
      );
    }
    // Teams and passes: the summary event names members, not the resource.
    this.listeners.push(
      onEvent(nats, 'member_summary_changed', logger, (event) => {
        for (const userId of event.payload.user_ids) this.record('member', 0, userId, Date.parse(event.occurred_at));
      }),
    );
  }

  stop(): void {
    for (const listener of this.listeners) listener.unsubscribe();
  }

  /** The resource's list, signed; 503 entitlement_signing_unavailable when no key can sign. */
  async list(resourceId: number): Promise<SignedRevocationList> {
    const signer = this.deps.keys.signer();
    if (!signer) throw entitlementSigningUnavailable();
    const [resource, entries] = await Promise.all([this.deps.resources.get(resourceId), this.deps.repository.listFor(resourceId)]);
    const now = this.deps.clock();
    const sessions: Record<string, number> = {};
    const members: Record<string, number> = {};
    const expired: string[] = [];
    for (const entry of entries) {
      if (entry.expires_at.getTime() <= now) {
        expired.push(entry._id);
        continue;
      }
      const stamps = entry.kind === 'session' ? sessions : members;
      stamps[entry.subject] = Math.max(stamps[entry.subject] ?? 0, entry.stale_through);
    }
    if (expired.length > 0) {
      this.deps.repository
        .remove(expired)
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'expired revocations not removed'));
    }
    const iat = Math.floor(now / 1000);
    const ttlSeconds = Math.floor(this.deps.timing.revocationListTtlMs / 1000);
    const claims = { iss: this.deps.issuer, aud: resource.publicKey, iat, exp: iat + ttlSeconds, sessions, members };
    return { token: signer.sign(REVOCATION_LIST_TYPE, claims), maxAgeSeconds: Math.floor(ttlSeconds / 2) };
  }

  private record(kind: RevocationRecord['kind'], resourceId: number, subject: number, at: number): void {
    const staleThrough = Math.floor(at / 1000);
    const entry: RevocationRecord = {
      _id: kind === 'session' ? `s:${subject}:${staleThrough}` : `m:${resourceId}:${subject}:${staleThrough}`,
      kind,
      resource_id: resourceId,
      subject,
      stale_through: staleThrough,
      // Past the last token issued through `staleThrough`, with the clock skew a key retirement allows.
      expires_at: new Date(staleThrough * 1000 + this.deps.timing.retireAfterMs),
    };
    this.deps.repository
      .record(entry)
      .catch((error: unknown) => this.deps.logger.warn({ err: error, kind, resourceId, subject }, 'revocation not recorded'));
  }
}
