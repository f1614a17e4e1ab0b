import { randomUUID } from 'node:crypto';
import { createServiceClient } from '@masthead/core/grpc';
import { RelationshipStatus } from '@masthead/proto/identity';
import { AccountRecoveryServiceService } from '@masthead/proto/identity/recovery';
import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '@masthead/testkit';
import { accessKit, authorizationFail, type Json } from './access-support.js';
import { catalogKit } from './catalog-support.js';
import { anyRequestId, useStack } from './support.js';

/** POST /user/suspend, DELETE /user/profile and the operator's restore (docs/adr/0071). */
describe('member access: suspension and profile removal', () => {
  const s = useStack();
  const kit = accessKit(s);
  const catalog = catalogKit(s);

  type Arranged = Awaited<ReturnType<typeof kit.signedInAtBoth>>;

  /**
   * What suspension and removal share: 200 `{result: true}`; the session here is kept but every
   * member operation with it fails with auth_access_fail, as with the member's other credentials,
   * and its refresh records are gone; the other resource is untouched (its session, refresh
   * record and relationship); the event names the member and the request, no revoked sessions.
   */
  const expectLeftThisResourceOnly = async (arranged: Arranged, response: ApiResponse<Json>, event: Json) => {
    const { home, elsewhere, member, here, there } = arranged;
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ result: true });
    await kit.expectBlockedSession(home, here);
    await kit.expectForeign(home, there.token);
    await kit.expectWorking(elsewhere, there.token);
    expect((await kit.sessionOf(there.sessionId))?.['revoked_at']).toBeNull();
    expect(await kit.refreshRecordsOf(there.sessionId)).toBe(1);
    expect(await kit.relationshipOf(elsewhere, member.id)).toMatchObject({ status: 'active' });
    expect(event).toEqual(
      kit.identityEvent(event['name'] as string, home.resourceId, {
        user_id: member.id,
        request_id: response.headers.get('x-request-id'),
      }),
    );
  };

  describe('POST /user/suspend', () => {
    it('suspends the member in this resource only; its sessions here stay but are refused', async () => {
      const arranged = await kit.signedInAtBoth();
      const { home, elsewhere, member, here } = arranged;
      const suspended = await kit.listen('member_suspended');

      const response = await kit.call(home, here.token, '/user/suspend', { method: 'POST' });
      await expectLeftThisResourceOnly(arranged, response, await suspended(response));
      expect(await kit.relationshipOf(home, member.id)).toMatchObject({ status: 'suspended' });
      // Sign-in here is refused like a wrong password; there it still works.
      expect((await kit.signIn(home, member)).body).toEqual(authorizationFail);
      expect((await kit.signIn(elsewhere, member)).status).toBe(200);
    });

    it('is lifted by the operator: sessions from before are revoked, the member signs in again', async () => {
      const { home, elsewhere, member, here, there } = await kit.signedInAtBoth();
      const second = await kit.signedIn(home, member);
      await kit.call(home, here.token, '/user/suspend', { method: 'POST' });
      const restored = await kit.listen('member_access_restored');

      const requestId = randomUUID();
      const change = await kit
        .operator()
        .restoreMemberAccess({ resourceId: home.resourceId, userId: 0, email: member.email }, { requestId });
      expect(change).toEqual({
        userId: member.id,
        resourceId: home.resourceId,
        previousStatus: RelationshipStatus.RELATIONSHIP_STATUS_SUSPENDED,
        status: RelationshipStatus.RELATIONSHIP_STATUS_ACTIVE,
        revokedSessionIds: [here.sessionId, second.sessionId],
      });
      await kit.expectWorking(elsewhere, there.token);
      for (const session of [here, second]) await kit.expectRevokedSession(home, session);
      const again = await kit.signedIn(home, member);
      await kit.expectWorking(home, again.token);
      const event = await restored(requestId);
      expect(event['payload']).toEqual({
        user_id: member.id,
        previous_status: 'suspended',
        revoked_session_ids: [here.sessionId, second.sessionId],
        request_id: requestId,
      });

      // Restoring an active relationship is refused, and so is an unknown member.
      await expect(kit.operator().restoreMemberAccess({ resourceId: home.resourceId, userId: member.id, email: '' })).rejects.toMatchObject(
        {
          status: 409,
          code: 'relationship_not_blocked',
        },
      );
      await expect(
        kit.operator().restoreMemberAccess({ resourceId: home.resourceId, userId: 0, email: 'nobody@example.test' }),
      ).rejects.toMatchObject({ status: 404, code: 'user_not_exist' });
    });

    it('answers 403 user_resource_not_exist to a session whose relationship is gone (suspension and removal alike)', async () => {
      const { home, member } = await kit.memberOfTwo();
      const { token } = await kit.signedIn(home, member);
      // No API deletes a relationship: arranged in the database. A session of another resource
      // never gets this far (401 auth_failed, docs/adr/0085).
      await s
        .db('identity')
        .collection('relationships')
        .deleteOne({ _id: `${home.resourceId}:${member.id}` as never });
      for (const [method, path] of [
        ['POST', '/user/suspend'],
        ['DELETE', '/user/profile'],
      ] as const) {
        const response = await kit.call(home, token, path, { method });
        expect(response.status).toBe(403);
        expect(response.body).toEqual({ error: 'user_resource_not_exist', error_description: expect.any(String), req_guid: anyRequestId });
      }
    });

    it('needs a member: a guest gets 401 auth_failed', async () => {
      const { home } = await kit.memberOfTwo();
      const response = await s.api('/user/suspend', { headers: { resource: home.publicKey }, json: {} });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: 'auth_failed', error_description: expect.any(String), req_guid: anyRequestId });
    });
  });

  describe('DELETE /user/profile', () => {
    it('removes the profile here: resource data cleared, sessions here refused, memberships kept', async () => {
      const arranged = await kit.signedInAtBoth();
      const { home, member, here } = arranged;
      const plan = await catalog.plan(home, `paid-${randomUUID().slice(0, 8)}`);
      const membershipId = await catalog.grant(home, member.id, (await catalog.pricing(plan.id, 'Monthly')).id, true);
      await s
        .db('identity')
        .collection('relationships')
        .updateOne({ _id: `${home.resourceId}:${member.id}` as never }, { $set: { extra: { favourite: 'sports' }, role: 'admin' } });
      // Tags and extra data here and elsewhere, arranged directly (PUT /user keeps one resource's tag list).
      const tags = s.db('identity').collection('user_tags');
      const tagOf = (resourceId: number) => ({
        _id: `${resourceId}:${member.id}:reader` as never,
        resource_id: resourceId,
        user_id: member.id,
        slug: 'reader',
        position: 0,
        created_at: new Date(),
      });
      await tags.insertMany([tagOf(home.resourceId), tagOf(arranged.elsewhere.resourceId)]);
      const extraData = s.db('identity').collection('extra_data');
      const extraOf = (resourceId: number) => ({
        _id: (resourceId * 1000 + member.id) as never,
        resource_id: resourceId,
        user_id: member.id,
        group_key: 'about',
        field_key: 'city',
        field_value: 'Lyon',
        created_at: new Date(),
        updated_at: new Date(),
      });
      await extraData.insertMany([extraOf(home.resourceId), extraOf(arranged.elsewhere.resourceId)]);
      const removed = await kit.listen('member_profile_removed');

      const response = await kit.call(home, here.token, '/user/profile', { method: 'DELETE' });
      await expectLeftThisResourceOnly(arranged, response, await removed(response));
      // Its tags and extra data here go; elsewhere they stay.
      for (const collection of [tags, extraData]) {
        const left = await collection.find({ user_id: member.id }).toArray();
        expect(left.map((row) => row['resource_id'])).toEqual([arranged.elsewhere.resourceId]);
      }
      expect(await kit.relationshipOf(home, member.id)).toMatchObject({ status: 'removed', extra: {}, role: 'user', password_hash: null });
      // The paid membership is not destroyed (docs/adr/0071): it is there when the member rejoins.
      const membership = await s
        .db('catalog')
        .collection('memberships')
        .findOne({ _id: membershipId as never });
      expect(membership).toMatchObject({ user_id: member.id, resource_id: home.resourceId, autorenew: true });
    });

    it('lets the member rejoin by signing in: a fresh relationship, the kept membership back, old sessions revoked', async () => {
      const { home, member, here } = await kit.signedInAtBoth();
      const plan = await catalog.plan(home, `paid-${randomUUID().slice(0, 8)}`);
      const membershipId = await catalog.grant(home, member.id, (await catalog.pricing(plan.id, 'Yearly')).id);
      await kit.call(home, here.token, '/user/profile', { method: 'DELETE' });
      // The email is free again in this resource.
      expect((await s.api('/email-validation', { headers: { resource: home.publicKey }, json: { email: member.email } })).body).toEqual({
        result: true,
      });

      const rejoined = await kit.signedIn(home, member);
      expect(await kit.relationshipOf(home, member.id)).toMatchObject({ status: 'active', extra: {}, role: 'user' });
      // The session kept from before the removal does not come back to life.
      await kit.expectRevokedSession(home, here);
      const profile = await kit.call(home, rejoined.token, '/user');
      expect(profile.status).toBe(200);
      expect((profile.body['subscriptions'] as Array<Record<string, unknown>>).map((item) => item['user_subscription_id'])).toContain(
        membershipId,
      );
    });

    it('lets the member rejoin by registering with its own password', async () => {
      const { home, member, here } = await kit.signedInAtBoth();
      await kit.call(home, here.token, '/user/profile', { method: 'DELETE' });
      const registered = await s.api('/registration', { headers: { resource: home.publicKey }, json: member });
      expect(registered.status).toBe(201);
      expect(registered.body['id']).toBe(member.id);
      await kit.expectWorking(home, registered.body['token'] as string);
      await kit.expectRevokedSession(home, here);
    });

    it('lets the member rejoin through an operator-issued external login token', async () => {
      const { home, member, here } = await kit.signedInAtBoth();
      await kit.call(home, here.token, '/user/profile', { method: 'DELETE' });
      const recovery = createServiceClient(AccountRecoveryServiceService, s.stack.env['IDENTITY_ADDR']!, { defaultDeadlineMs: 10_000 });
      try {
        const issued = await recovery.issueExternalLoginToken({ resourceId: home.resourceId, email: member.email, ttlSeconds: 0 });
        const login = await s.api(`/auth/external/${issued.token}`, { headers: { resource: home.publicKey } });
        expect(login.status).toBe(200);
        await kit.expectWorking(home, login.body['token'] as string);
        expect(await kit.relationshipOf(home, member.id)).toMatchObject({ status: 'active' });
        await kit.expectRevokedSession(home, here);
      } finally {
        recovery.close();
      }
    });

    it('cannot be restored by the operator: the member rejoins instead', async () => {
      const { home, member, here } = await kit.signedInAtBoth();
      await kit.call(home, here.token, '/user/profile', { method: 'DELETE' });
      await expect(kit.operator().restoreMemberAccess({ resourceId: home.resourceId, userId: member.id, email: '' })).rejects.toMatchObject(
        {
          status: 404,
          code: 'user_not_exist',
        },
      );
    });
  });

  it('a logout of a kept session of the suspended member is refused too; the session stays refused', async () => {
    const { home, here } = await kit.signedInAtBoth();
    await kit.call(home, here.token, '/user/suspend', { method: 'POST' });
    const response = await kit.call(home, here.token, '/logout');
    expect(response.status).toBe(401);
    expect(response.body['error']).toBe('auth_access_fail');
    await kit.expectBlockedSession(home, here);
  });
});
