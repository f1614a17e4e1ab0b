import { markFields, type EventPublisher, type PreparedEvent } from '@masthead/core/events';
import type { Resource } from '@masthead/proto/accounts';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { IssuedSession, SessionService } from '../sessions/session.service.js';
import type { JoinPath, MembershipAttacher } from './membership-attacher.js';
import type { SignInCommand } from './sign-in.command.js';

/** The events a session start records. */
export type SessionEvent = 'user_login' | 'user_signup';

export interface SessionContext {
  requestId: string;
  guestSession: string | null;
  sourceType: string | null;
  ip: string | null;
  userAgent: string | null;
}

export interface StartedSession {
  issued: IssuedSession;
  code: string | null;
  redirectUri: string | null;
  /** False for response type `code`: the client gets only the code. */
  includeToken: boolean;
}

type Delivery = Pick<SignInCommand, 'responseType' | 'redirectUri'>;

interface StarterDeps {
  relationships: RelationshipRepository;
  sessions: SessionService;
  memberships: MembershipAttacher;
  events: EventPublisher;
}

/** What sign-in and registration share once the member is known: joining and the session. */
export class SessionStarter {
  constructor(private readonly deps: StarterDeps) {}

  /**
   * Attaches the member to the resource; a member joining gets the default membership of the
   * way it joined (a guest unless it registered here).
   */
  async join(resource: Resource, userId: number, path: JoinPath = 'guest'): Promise<boolean> {
    const { created } = await this.deps.relationships.attach(resource.id, userId);
    if (created) await this.deps.memberships.attachDefault(resource, userId, path);
    return created;
  }

  /**
   * Issues the session (and a code where asked) and records the event, `user_login` or
   * `user_signup`, prepared before the session row that witnesses it (docs/adr/0180): a crash
   * after the row is written still publishes it, a crash before does not.
   */
  async start(
    userId: number,
    resource: Resource | null,
    delivery: Delivery,
    context: SessionContext,
    event: SessionEvent,
  ): Promise<StartedSession> {
    // A proposed session ID that clashes is proposed again: the last prepared event is the row's.
    let prepared: PreparedEvent<SessionEvent> | undefined;
    const issued = await this.deps.sessions.issue(
      {
        userId,
        resourceId: resource?.id ?? 0,
        sourceType: context.sourceType,
        guestSession: context.guestSession,
        ip: context.ip,
        userAgent: context.userAgent,
      },
      async (witness) => {
        const payload = {
          user_id: userId,
          session_id: Number(witness.id),
          source_type: context.sourceType,
          guest_session: context.guestSession,
          ip: context.ip,
          user_agent: context.userAgent,
        };
        prepared = await this.deps.events.prepare({ name: event, resourceId: resource?.id ?? null, payload }, witness);
        return markFields(prepared);
      },
    );
    const code =
      delivery.responseType === 'token' || !delivery.redirectUri
        ? null
        : await this.deps.sessions.issueAuthCode(issued.session, delivery.redirectUri);
    await prepared?.commit();
    return { issued, code, redirectUri: delivery.redirectUri, includeToken: delivery.responseType !== 'code' };
  }
}
