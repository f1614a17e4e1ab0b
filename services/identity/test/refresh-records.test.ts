import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedSession } from '../src/sessions/session.service.js';
import { hashToken } from '../src/sessions/tokens.js';
import { noContext, openSessionFixture, RESOURCE, type SessionFixture } from './session-fixture.js';

/**
 * A refresh record says by itself whether it may be used (docs/adr/0217): its use deletes it and
 * leaves the claim to answer for it, its session's endings delete or mark it.
 */
describe('refresh records', () => {
  let fixture: SessionFixture;
  let userId = 100;
  beforeAll(async () => {
    fixture = await openSessionFixture('refresh_records');
  });
  afterAll(() => fixture?.close());

  const signIn = () => fixture.sessions.issue({ userId: ++userId, resourceId: RESOURCE, ...noContext });
  const refresh = (refreshToken: string, reusable: boolean) => fixture.exchange.refresh({ resourceId: RESOURCE, refreshToken, reusable });
  const failureOf = (work: Promise<unknown>) =>
    work.then(
      () => 'answered',
      (error: { code?: string }) => error.code,
    );
  const recordOf = (refreshToken: string) => fixture.db.collection('refresh_tokens').findOne({ _id: hashToken(refreshToken) as never });
  /** A record as versions before ADR 0217 stored it: without `tracks_session`. */
  const asEarlierVersion = async (issued: IssuedSession) => {
    await fixture.db
      .collection('refresh_tokens')
      .updateOne({ _id: hashToken(issued.refreshToken) as never }, { $unset: { tracks_session: 1, compromised_at: 1 } });
  };

  it('refreshes a kept record with one read, of the record itself', async () => {
    const issued = await signIn();
    const commands = await fixture.commandsDuring(() => refresh(issued.refreshToken, true));
    expect(commands).toEqual(['find refresh_tokens', 'insert session_tokens']);
    expect(await recordOf(issued.refreshToken)).toMatchObject({ session_id: issued.session._id, tracks_session: true });
  });

  it('deletes a used record; its claim answers a retry in the window and refuses keeping it', async () => {
    const issued = await signIn();
    const first = await refresh(issued.refreshToken, false);
    expect(await recordOf(issued.refreshToken)).toBeNull();
    expect(await fixture.repository.findUse(`refresh:${hashToken(issued.refreshToken)}`)).toMatchObject({
      session_id: issued.session._id,
      user_id: userId,
      resource_id: RESOURCE,
    });
    expect(await refresh(issued.refreshToken, false)).toEqual(first);
    expect(await failureOf(refresh(issued.refreshToken, true))).toBe('token_compromised');
    // The family is compromised: the rotated record is marked and refused without a session read.
    expect(await recordOf(first.refreshToken)).toMatchObject({ compromised_at: expect.any(Date) });
    const commands = await fixture.commandsDuring(() => failureOf(refresh(first.refreshToken, true)));
    expect(commands).toEqual(['find refresh_tokens']);
    expect(await failureOf(refresh(first.refreshToken, true))).toBe('token_compromised');
  });

  it('refuses a record of another resource and an unknown one, claiming nothing', async () => {
    const issued = await signIn();
    const other = fixture.exchange.refresh({ resourceId: RESOURCE + 1, refreshToken: issued.refreshToken, reusable: false });
    expect(await failureOf(other)).toBe('refresh_failed');
    expect(await recordOf(issued.refreshToken)).not.toBeNull();
    expect(await failureOf(refresh('not-a-stored-token', false))).toBe('refresh_failed');
  });

  it('refuses the records of a logged-out session: the logout deleted them, used or kept', async () => {
    const issued = await signIn();
    const used = await refresh(issued.refreshToken, false);
    await fixture.sessions.logout(issued.session._id);
    expect(await failureOf(refresh(used.refreshToken, true))).toBe('refresh_failed');
    expect(await failureOf(refresh(issued.refreshToken, false))).toBe('refresh_failed');
  });

  it('takes back a record stored while its session ended', async () => {
    // The ending lands between the refresh's read of the record and its insert of the next one:
    // here the session is revoked with its record left in place.
    const issued = await signIn();
    await fixture.db.collection('sessions').updateOne({ _id: issued.session._id as never }, { $set: { revoked_at: new Date() } });
    const before = await fixture.db.collection('refresh_tokens').countDocuments({ session_id: issued.session._id });
    expect(before).toBe(1);
    expect(await failureOf(refresh(issued.refreshToken, false))).toBe('refresh_failed');
    expect(await fixture.db.collection('refresh_tokens').countDocuments({ session_id: issued.session._id })).toBe(0);
  });

  it('checks a record of an earlier version against its session and its claim', async () => {
    const kept = await signIn();
    await asEarlierVersion(kept);
    const commands = await fixture.commandsDuring(() => refresh(kept.refreshToken, true));
    expect(commands.slice(0, 3).sort()).toEqual(['find refresh_tokens', 'find secret_uses', 'find sessions']);
    // Ended before ADR 0217: the session is compromised, its records are not marked.
    await fixture.db.collection('sessions').updateOne({ _id: kept.session._id as never }, { $set: { compromised_at: new Date() } });
    expect(await failureOf(refresh(kept.refreshToken, true))).toBe('token_compromised');

    // Used before ADR 0217: the record stayed, the claim has no session.
    const used = await signIn();
    await asEarlierVersion(used);
    await fixture.repository.claimUse(`refresh:${hashToken(used.refreshToken)}`);
    expect(await failureOf(refresh(used.refreshToken, true))).toBe('token_compromised');
    expect(await fixture.repository.findSession(used.session._id)).toMatchObject({ compromised_at: expect.any(Date) });
  });
});
