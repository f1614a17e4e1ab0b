import type { CrmTag } from '@masthead/proto/integrations/crm';
import type { FakeCall } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { crmKey, envelope, newTenant, signIn, useProviders, type SignedIn } from './provider-support.js';
import { collectEvents, eventWhere } from './support.js';

/**
 * The `crm` provider operations (document 2 H; OPERATIONS.md 92-94; docs/adr/0160, 0163)
 * through the gateway and integrations, against the local fake of the provider's API v3 (tests/
 * stack fake-providers). Tags are imported by the operator call the admin CLI makes.
 */
describe('crm provider', () => {
  const p = useProviders();
  const s = () => p.s;
  const keyOf = (call: FakeCall) => call.headers['api-token'];
  const callsOf = (key: string) => p.crm.calls.filter((call) => keyOf(call) === key);
  const byKey = (key: string) => ({ match: (call: FakeCall) => keyOf(call) === key });

  /** A resource whose CRM is configured and active, with its tags imported and two of them allowed. */
  async function configured() {
    const tenant = await newTenant(s());
    const key = crmKey();
    const account = p.crm.account(key);
    const vip = account.tag('VIP', { description: 'Very important' });
    const beta = account.tag('Beta');
    const hidden = account.tag('Hidden');
    const operator = p.operator();
    const resourceId = tenant.resourceId;
    await operator.providerConfig.setProviderSecret({ resourceId, provider: 'crm', secret: key });
    await operator.providerConfig.setCrmSettings({ resourceId, accountName: 'acme', active: true });
    const imported = (await operator.crm.importTags({ resourceId })).items;
    await operator.crm.setTagFlags({ resourceId, tagId: vip.id, allowedForUsers: true, required: true });
    await operator.crm.setTagFlags({ resourceId, tagId: beta.id, allowedForUsers: true, required: false });
    const member = await signIn(s(), tenant, 'user', { firstName: 'Ada', lastName: 'Lovelace' });
    const local = (tagId: string) => imported.find((tag) => tag.tagId === tagId)!;
    return { tenant, key, account, vip, beta, hidden, local, member };
  }
  const record = (tag: CrmTag, flags: { allowed_for_users: boolean; required: boolean }, fields: Record<string, unknown> = {}) => ({
    id: tag.id,
    resource_id: tag.resourceId,
    tag_id: tag.tagId,
    tag_type: 'contact',
    tag: tag.tag,
    description: tag.description,
    subscriber_count: 0,
    ...flags,
    ...fields,
  });
  const ALLOWED = { allowed_for_users: true, required: false };
  const HIDDEN = { allowed_for_users: false, required: false };
  const getTags = (member: SignedIn) => s().api('/integrations/crm/tags', { headers: member.headers });
  const getUserTags = (member: SignedIn) => s().api('/integrations/crm/user/tags', { headers: member.headers });
  const putUserTags = (member: SignedIn, json: unknown) =>
    s().api('/integrations/crm/user/tags', { method: 'PUT', headers: member.headers, json });
  /** Drops the member's relationship with its resource, as a removal that left the session alive would. */
  const leaveResource = (member: SignedIn, resourceId: number) =>
    s()
      .db('identity')
      .collection('relationships')
      .deleteOne({ _id: `${resourceId}:${member.id}` as never });
  const deactivate = (resourceId: number) => p.operator().providerConfig.setCrmSettings({ resourceId, accountName: 'acme', active: false });

  describe('GET /integrations/crm/tags', () => {
    it('answers the stored tags with allowed_for_users, without calling the provider', async () => {
      const { key, local, vip, beta, member } = await configured();
      const before = callsOf(key).length;
      const response = await getTags(member);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({
        items: [record(local(vip.id), { allowed_for_users: true, required: true }), record(local(beta.id), ALLOWED)],
      });
      expect(callsOf(key)).toHaveLength(before);
    });

    it("answers 403 crm_get_tags_error when the resource's CRM is not active or not configured", async () => {
      const { tenant, member } = await configured();
      await deactivate(tenant.resourceId);
      const inactive = await getTags(member);
      expect(inactive.status).toBe(403);
      expect(inactive.body).toEqual(envelope('crm_get_tags_error', 'The crm integration is not enabled for this resource'));
      const none = await getTags(await signIn(s(), await newTenant(s())));
      expect(none.status).toBe(403);
    });

    it('answers 409 crm_get_tags_error when a stored tag cannot be read', async () => {
      const { tenant, vip, member } = await configured();
      await s()
        .db('integrations')
        .collection('crm_tags')
        .updateOne({ resource_id: tenant.resourceId, tag_id: vip.id }, { $set: { tag: 42 } });
      const response = await getTags(member);
      expect(response.status).toBe(409);
      expect(response.body).toEqual(envelope('crm_get_tags_error', 'The stored CRM tags could not be read'));
    });
  });

  describe('GET /integrations/crm/user/tags', () => {
    it("synchronizes the member's contact, then answers its provider tags that have a stored tag", async () => {
      const { key, account, local, vip, hidden, member } = await configured();
      const first = await getUserTags(member);
      expect(first.status, first.text).toBe(200);
      expect(first.body).toEqual({ items: [] });
      expect(account.contact(member.email)).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });
      const notImported = account.tag('Created after the import');
      for (const tag of [vip, hidden, notImported]) account.addContactTag(member.email, tag.id);
      const response = await getUserTags(member);
      // allowed_for_users is not applied here; a provider tag without a stored one is left out.
      expect(response.body).toEqual({
        items: [record(local(vip.id), { allowed_for_users: true, required: true }), record(local(hidden.id), HIDDEN)],
      });
      const contactId = account.contact(member.email)!.id;
      expect(callsOf(key).slice(-2)).toMatchObject([
        {
          method: 'POST',
          path: '/api/3/contact/sync',
          body: { contact: { email: member.email, firstName: 'Ada', lastName: 'Lovelace', phone: '' } },
        },
        { method: 'GET', path: `/api/3/contacts/${contactId}/contactTags` },
      ]);
    });

    it('answers 404 get_user_tags_error for a member without a relationship, 403 when the CRM is not active', async () => {
      const { tenant, member } = await configured();
      const other = await signIn(s(), tenant);
      await leaveResource(other, tenant.resourceId);
      const outside = await getUserTags(other);
      expect(outside.status).toBe(404);
      expect(outside.body).toEqual(envelope('get_user_tags_error', 'The user is not a member of this resource'));
      await deactivate(tenant.resourceId);
      const inactive = await getUserTags(member);
      expect(inactive.status).toBe(403);
      expect(inactive.body).toEqual(envelope('get_user_tags_error', 'The crm integration is not enabled for this resource'));
    });

    it('answers 409 get_user_tags_error for an empty key or account name and for each failed provider stage', async () => {
      const { tenant, key, member } = await configured();
      const operator = p.operator();
      await operator.providerConfig.setCrmSettings({ resourceId: tenant.resourceId, accountName: '', active: true });
      const noAccount = await getUserTags(member);
      expect(noAccount.status).toBe(409);
      expect(noAccount.body).toEqual(envelope('get_user_tags_error', 'the crm key or account name is empty'));
      await operator.providerConfig.setCrmSettings({ resourceId: tenant.resourceId, accountName: 'acme', active: true });
      // The provider refuses the contact.
      p.crm.fault({
        count: 1,
        ...byKey(key),
        answer: () => ({
          status: 422,
          body: { errors: [{ title: 'Contact Email Address is not valid.', detail: '', code: 'email_invalid' }] },
        }),
      });
      const refused = await getUserTags(member);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual(
        envelope('get_user_tags_error', 'the contact could not be created or updated: Contact Email Address is not valid.'),
      );
      // The contact's tags cannot be read.
      p.crm.fault({
        count: 1,
        match: (call) => keyOf(call) === key && call.path.endsWith('/contactTags'),
        answer: () => ({ status: 404, body: { message: 'No Result found' } }),
      });
      const unread = await getUserTags(member);
      expect(unread.status).toBe(409);
      expect(unread.body).toEqual(envelope('get_user_tags_error', 'the contact tags could not be read: No Result found'));
      // A rate limit that outlasts the call's attempts.
      p.crm.rateLimit(3, byKey(key));
      const limited = await getUserTags(member);
      expect(limited.status).toBe(409);
      expect(limited.body).toEqual(envelope('get_user_tags_error', 'the contact could not be created or updated: Too Many Requests'));
    });

    it('waits out a 429 as Retry-After asks', async () => {
      const { key, member } = await configured();
      p.crm.rateLimit(1, { retryAfterSeconds: 1, ...byKey(key) });
      const started = Date.now();
      const response = await getUserTags(member);
      expect(response.status, response.text).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(callsOf(key).filter((call) => call.path === '/api/3/contact/sync')).toHaveLength(2);
    });
  });

  describe('PUT /integrations/crm/user/tags', () => {
    it('adds for truthy flags and removes for falsy ones (the text "false" is truthy); unknown and omitted tags stay', async () => {
      const { account, local, vip, beta, hidden, member } = await configured();
      await getUserTags(member);
      account.addContactTag(member.email, beta.id);
      account.addContactTag(member.email, hidden.id);
      const events = collectEvents(s().nats, 'user_update_crm_tags');
      const tags = { [local(vip.id).id]: 'false', [local(beta.id).id]: 0, 999999: true, nope: true };
      const response = await putUserTags(member, { tags });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({
        items: [record(local(vip.id), { allowed_for_users: true, required: true }), record(local(hidden.id), HIDDEN)],
      });
      expect(account.tagsOf(member.email)).toEqual(['Hidden', 'VIP']);
      const event = await eventWhere(events, 'user_id', member.id);
      expect(event['payload']).toEqual({ user_id: member.id, tags: { ...tags, 999999: true }, changes: [] });
      // Applying the same map again changes nothing.
      expect((await putUserTags(member, { tags })).body).toEqual(response.body);
      expect(account.tagsOf(member.email)).toEqual(['Hidden', 'VIP']);
    });

    it('synchronizes the contact even when every key is unknown', async () => {
      const { account, member } = await configured();
      expect(account.contact(member.email)).toBeUndefined();
      const response = await putUserTags(member, { tags: { 424242: true } });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({ items: [] });
      expect(account.contact(member.email)).toMatchObject({ email: member.email, firstName: 'Ada' });
    });

    it('answers 409 update_user_tag_error for a body that is not JSON and for missing or empty tags', async () => {
      const { member } = await configured();
      const notJson = [{ raw: '{"tags":', headers: { 'content-type': 'application/json' } }, { form: { tags: '1' } }, {}];
      for (const request of notJson) {
        const response = await s().api('/integrations/crm/user/tags', {
          method: 'PUT',
          ...request,
          headers: { ...member.headers, ...(request as { headers?: Record<string, string> }).headers },
        });
        expect(response.status, JSON.stringify(request)).toBe(409);
        expect(response.body).toEqual(envelope('update_user_tag_error', 'The body must be JSON'));
      }
      for (const body of [{}, { tags: {} }, { tags: [] }, { tags: 'VIP' }]) {
        const response = await putUserTags(member, body);
        expect(response.status, JSON.stringify(body)).toBe(409);
        expect(response.body).toEqual(envelope('update_user_tag_error', 'tags must be a non-empty map of tag IDs to flags'));
      }
    });

    it('answers 404 update_user_tag_error outside the resource, 403 when not active, 409 when the provider fails', async () => {
      const { tenant, key, local, vip, member } = await configured();
      const tags = { [local(vip.id).id]: true };
      const other = await signIn(s(), tenant);
      await leaveResource(other, tenant.resourceId);
      const outside = await putUserTags(other, { tags });
      expect(outside.status).toBe(404);
      expect(outside.body).toEqual(envelope('update_user_tag_error', 'The user is not a member of this resource'));
      p.crm.fault({
        count: 1,
        match: (call) => keyOf(call) === key && call.path === '/api/3/contactTags',
        answer: () => ({ status: 404, body: { message: 'No Result found for Tag with id 1' } }),
      });
      const refused = await putUserTags(member, { tags });
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual(envelope('update_user_tag_error', 'the tag could not be added: No Result found for Tag with id 1'));
      p.crm.rateLimit(3, byKey(key));
      const limited = await putUserTags(member, { tags });
      expect(limited.status).toBe(409);
      expect(limited.body).toEqual(envelope('update_user_tag_error', 'the contact could not be created or updated: Too Many Requests'));
      await deactivate(tenant.resourceId);
      const inactive = await putUserTags(member, { tags });
      expect(inactive.status).toBe(403);
      expect(inactive.body).toEqual(envelope('update_user_tag_error', 'The crm integration is not enabled for this resource'));
    });
  });

  it("keeps resources apart: another resource's tag IDs are unknown, its tags unseen and its key unused", async () => {
    const a = await configured();
    const b = await configured();
    const aVip = a.local(a.vip.id).id;
    const response = await putUserTags(b.member, { tags: { [aVip]: true } });
    expect(response.body).toEqual({ items: [] });
    expect(b.account.tagsOf(b.member.email)).toEqual([]);
    expect(a.account.contact(b.member.email)).toBeUndefined();
    const bTags = (await getTags(b.member)).body['items'] as Array<{ id: number; resource_id: number }>;
    expect(bTags.every((tag) => tag.resource_id === b.tenant.resourceId && tag.id !== aVip)).toBe(true);
    expect(callsOf(a.key).some((call) => call.body && JSON.stringify(call.body).includes(b.member.email))).toBe(false);
  });
});
