import { createHash, randomBytes } from 'node:crypto';
import type { EventPublisher } from '@masthead/core/events';
import { passTokenRefused } from './pass.errors.js';
import type { PassRepository } from './pass.repository.js';
import type { PassRecord } from './pass.schema.js';
import type { PassTokenRepository } from './pass-token.repository.js';

interface Deps {
  passes: PassRepository;
  tokens: PassTokenRepository;
  events: EventPublisher;
  /** Lifetime of a pass authorization token (PASS_TOKEN_TTL_SECONDS). */
  tokenTtlSeconds: number;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Who attends a pass, and the pass authorization token that stands for them (docs/adr/0153):
 * each assignment issues a new token (earlier ones stop working) and announces it to the
 * attendee in `ti_event_pass_assigned`; the end of an assignment revokes its tokens.
 */
export class PassAttendance {
  constructor(private readonly deps: Deps) {}

  /** The member attends the pass: `assign_id`, a fresh token, the event for the mail sender. */
  async admit(pass: PassRecord, userId: number, email: string | null): Promise<PassRecord> {
    const updated = (await this.deps.passes.update(pass.resource_id, pass._id, { assign_id: userId })) ?? { ...pass, assign_id: userId };
    await this.deps.tokens.revokeForPass(pass._id);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + this.deps.tokenTtlSeconds * 1000);
    await this.deps.tokens.insert({
      _id: hashOf(token),
      pass_id: pass._id,
      resource_id: pass.resource_id,
      user_id: userId,
      expires_at: expiresAt,
      created_at: new Date(),
    });
    await this.deps.events.publish({
      name: 'ti_event_pass_assigned',
      resourceId: pass.resource_id,
      payload: {
        pass_id: pass._id,
        ti_event_id: pass.ti_event_id,
        ticket_id: pass.ticket_id,
        owner_id: pass.owner_id,
        assign_id: userId,
        email,
        authorization_token: token,
        expires_at: expiresAt.toISOString(),
      },
    });
    return updated;
  }

  /** The pass loses its attendee (only the one named: a parallel change is left alone). */
  async dismiss(pass: PassRecord, userId: number | null): Promise<PassRecord> {
    await this.deps.tokens.revokeForPass(pass._id);
    const current = await this.deps.passes.find(pass.resource_id, pass._id);
    if (!current || current.assign_id !== userId) return current ?? pass;
    return (await this.deps.passes.update(pass.resource_id, pass._id, { assign_id: null })) ?? { ...current, assign_id: null };
  }

  /** The attendee a live token of the resource stands for; 401 authorization_fail otherwise. */
  async redeem(resourceId: number, token: string): Promise<{ userId: number; passId: number }> {
    const record = token ? await this.deps.tokens.findByHash(hashOf(token)) : null;
    if (!record || record.resource_id !== resourceId || new Date(record.expires_at).getTime() <= Date.now()) throw passTokenRefused();
    const pass = await this.deps.passes.find(resourceId, record.pass_id);
    if (pass?.assign_id !== record.user_id) throw passTokenRefused();
    return { userId: record.user_id, passId: pass._id };
  }
}
