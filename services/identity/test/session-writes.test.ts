import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemberSessions } from '../src/access/member-sessions.js';
import type { CredentialExchange } from '../src/sessions/credential-exchange.service.js';
import type { SessionRepository } from '../src/sessions/session.repository.js';
import type { SessionService } from '../src/sessions/session.service.js';
import { hashToken, newToken } from '../src/sessions/tokens.js';
import { noContext, openSessionFixture, RESOURCE, type SessionFixture } from './session-fixture.js';

const HOUR_MS = 3_600_000;

/**
 * After its insert a session is written only by ending writes: FerretDB rewrites the whole
 * document per update, so a refresh's update could write a revocation back out (ADR 0204).
 */
describe('session writes', () => {
  let fixture: SessionFixture;
  let db: Connection;
  let repository: SessionRepository;
  let sessions: SessionService;
  let exchange: CredentialExchange;

  beforeAll(async () => {
    fixture = await openSessionFixture('session_writes');
    ({ db, repository, sessions, exchange } = fixture);
  });
  afterAll(() => fixture?.close());

  /** The write commands `work` sends to the sessions collection, in order. */
  const sessionWrites = async (work: () => Promise<unknown>): Promise<string[]> =>
    (await fixture.commandsDuring(work))
      .filter((command) => command.endsWith(' sessions') && !command.startsWith('find '))
      .map((command) => command.split(' ')[0]!);

  const stateOf = async (token: string) => (await sessions.resolve(token)).state;

  it('refreshes and code exchanges insert only: no update of the session', async () => {
    const issued = await sessions.issue({ userId: 1, resourceId: RESOURCE, ...noContext });
    let latest = issued;
    const writes = await sessionWrites(async () => {
      const first = await exchange.refresh({ resourceId: RESOURCE, refreshToken: issued.refreshToken, reusable: false });
      // A second use within the reuse window stores the same rotation again.
      expect(await exchange.refresh({ resourceId: RESOURCE, refreshToken: issued.refreshToken, reusable: false })).toEqual(first);
      const kept = await exchange.refresh({ resourceId: RESOURCE, refreshToken: first.refreshToken, reusable: true });
      const code = await sessions.issueAuthCode(kept.session, '');
      latest = await exchange.exchangeCode({ resourceId: RESOURCE, code, redirectUri: '' });
    });
    expect(writes).toEqual([]);
    expect(latest.expiresAt.getTime()).toBeGreaterThan(issued.expiresAt.getTime());
    expect(await repository.findSession(issued.session._id)).toEqual(issued.session);
    expect(await stateOf(latest.token)).toBe('active');
    expect(await stateOf(issued.token)).toBe('active');
    // The listener sees the session's writes: the ending ones.
    expect(await sessionWrites(() => sessions.logout(issued.session._id))).toEqual(['update']);
    expect(await stateOf(latest.token)).toBe('expired');
    expect(await sessionWrites(() => sessions.markCompromised(issued.session))).toEqual(['update']);
    expect(await stateOf(latest.token)).toBe('compromised');
  });

  /** A session whose sign-in expiry has passed, with a token and a refresh record. */
  const signedInLongAgo = async (userId: number, legacyToken = false) => {
    const session = await repository.createSession({
      user_id: userId,
      resource_id: RESOURCE,
      expires_at: new Date(Date.now() - 1000),
      source_type: null,
      guest_session: null,
      ip: null,
      user_agent: null,
    });
    const token = newToken();
    const refreshToken = newToken();
    if (legacyToken) await db.collection('session_tokens').insertOne({ _id: hashToken(token) as never, session_id: session._id });
    else await repository.addToken(hashToken(token), session._id, session.expires_at);
    await repository.addRefreshToken(hashToken(refreshToken), session, new Date(Date.now() + HOUR_MS));
    return { session, token, refreshToken };
  };

  it('lets a refreshed token outlive the sign-in expiry; device limits count its session', async () => {
    const refreshed = await signedInLongAgo(2);
    const idle = await signedInLongAgo(2);
    expect(await stateOf(refreshed.token)).toBe('expired');
    const rotated = await exchange.refresh({ resourceId: RESOURCE, refreshToken: refreshed.refreshToken, reusable: false });
    expect(await stateOf(rotated.token)).toBe('active');
    expect(await stateOf(refreshed.token)).toBe('expired');
    expect(await stateOf(idle.token)).toBe('expired');
    const live = await new MemberSessions(db).live(2, RESOURCE);
    expect(live.map((session) => session._id)).toEqual([refreshed.session._id]);
  });

  it('keeps records of earlier versions working: a token without an expiry follows its session', async () => {
    // Extended by an earlier version's refresh: the session's own expiry is later.
    const extended = await signedInLongAgo(3, true);
    await db
      .collection('sessions')
      .updateOne({ _id: extended.session._id as never }, { $set: { expires_at: new Date(Date.now() + HOUR_MS) } });
    expect(await stateOf(extended.token)).toBe('active');
    // Refreshed by this version: the newest token's expiry is the session's.
    const refreshed = await signedInLongAgo(3, true);
    expect(await stateOf(refreshed.token)).toBe('expired');
    await exchange.refresh({ resourceId: RESOURCE, refreshToken: refreshed.refreshToken, reusable: true });
    expect(await stateOf(refreshed.token)).toBe('active');
    const live = await new MemberSessions(db).live(3, RESOURCE);
    expect(live.map((session) => session._id)).toEqual([extended.session._id, refreshed.session._id]);
  });
});
