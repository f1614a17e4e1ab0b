import type { EventName, EventPublisher } from '@masthead/core/events';
import type { CodeTarget, MemberCodes } from './member-codes.js';
import type { CodePurpose } from './member-code.schema.js';

/** The purposes whose codes travel by mail (an external login token goes to an operator). */
export type MailedPurpose = Exclude<CodePurpose, 'external_login'>;

/**
 * Event names a mail sender subscribes to (docs/adr/0056), one per mail it writes. Subjects
 * are `masthead.events.<name>`.
 */
export const MAIL_EVENTS = {
  email_confirmation: 'email_confirmation_requested',
  password_reset: 'password_reset_requested',
  email_change: 'email_change_requested',
} as const satisfies Readonly<Record<MailedPurpose, EventName>>;

export interface CodeMailerDeps {
  codes: MemberCodes;
  events: EventPublisher;
  ttlSeconds: Readonly<Record<MailedPurpose, number>>;
}

/**
 * Issues a code and hands it to the mail sender as an event (through the outbox, so it is not
 * lost when NATS is down). The payload carries the code — the point of the mail — and nothing
 * else secret.
 */
export class CodeMailer {
  constructor(private readonly deps: CodeMailerDeps) {}

  async send(purpose: MailedPurpose, target: CodeTarget): Promise<void> {
    const { code, expiresAt } = await this.deps.codes.issue(purpose, target, this.deps.ttlSeconds[purpose]);
    await this.deps.events.publish({
      name: MAIL_EVENTS[purpose],
      resourceId: target.resourceId,
      payload: { user_id: target.userId, email: target.email, code, expires_at: expiresAt.toISOString() },
    });
  }
}
