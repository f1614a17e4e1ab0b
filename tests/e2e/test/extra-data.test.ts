import { randomUUID } from 'node:crypto';
import { createTenant, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { signedInMember } from './member-session.js';
import { anyIsoDate, anyRequestId, collectEvents, eventually, useStack } from './support.js';

/** Member extra data (document 2, section A; docs/adr/0065). */
describe('member extra data', () => {
  const s = useStack();

  const signedIn = (tenant?: Tenant) => signedInMember(s, tenant);

  const row = (member: { id: number }, tenant: Tenant, group_key: string, field_key: string, field_value: string) => ({
    id: expect.any(Number),
    user_id: member.id,
    resource_id: tenant.resourceId,
    group_key,
    field_key,
    field_value,
    created_at: anyIsoDate,
    updated_at: anyIsoDate,
  });

  const put = (headers: Record<string, string>, json: unknown, path = '/user/extra/data') => s.api(path, { method: 'PUT', headers, json });
  const remove = (headers: Record<string, string>, json: unknown) => s.api('/user/extra/data', { method: 'DELETE', headers, json });
  const errorBody = (error: string) => ({ error, error_description: expect.any(String), req_guid: anyRequestId });

  it('answers {items: []} (an array) while the member has no rows', async () => {
    const { headers } = await signedIn();
    const response = await s.api('/user/extra/data', { headers });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ items: [] });
    expect((await s.api('/user/extra/data/custom-fields', { headers })).body).toEqual({ items: [] });
  });

  it('upserts fields and answers with every group as {items: {group: [rows]}}', async () => {
    const { tenant, member, headers } = await signedIn();
    const first = await put(headers, {
      extra_groups: [
        { group_key: ' survey ', field_key: ' color ', field_value: '  blue ' },
        { group_key: 'survey', field_key: 'size', field_value: 'L' },
        { group_key: 'prefs', field_key: 'newsletter', field_value: '' },
      ],
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      items: {
        survey: [row(member, tenant, 'survey', 'color', 'blue'), row(member, tenant, 'survey', 'size', 'L')],
        prefs: [row(member, tenant, 'prefs', 'newsletter', '')],
      },
    });
    const items = first.body['items'] as Record<string, Array<Record<string, unknown>>>;
    const colorId = items['survey']![0]!['id'];

    // An existing field keeps its row and ID; fields not named stay as they were.
    const second = await put(headers, { extra_groups: [{ group_key: 'survey', field_key: 'color', field_value: 'red' }] });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({
      items: {
        survey: [{ ...row(member, tenant, 'survey', 'color', 'red'), id: colorId }, row(member, tenant, 'survey', 'size', 'L')],
        prefs: [row(member, tenant, 'prefs', 'newsletter', '')],
      },
    });
    const read = await s.api('/user/extra/data', { headers });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(second.body);
  });

  it('keeps one row per field when writers race, and distinct IDs for distinct fields', async () => {
    const { headers } = await signedIn();
    const writes = Array.from({ length: 6 }, (_, i) =>
      put(headers, {
        extra_groups: [
          { group_key: 'race', field_key: 'shared', field_value: `v${i}` },
          { group_key: 'race', field_key: `own-${i}`, field_value: 'x' },
        ],
      }),
    );
    for (const response of await Promise.all(writes)) expect(response.status).toBe(200);
    const rows = ((await s.api('/user/extra/data', { headers })).body['items'] as Record<string, Array<Record<string, unknown>>>)['race']!;
    expect(rows.filter((row) => row['field_key'] === 'shared')).toHaveLength(1);
    expect(rows).toHaveLength(7);
    expect(new Set(rows.map((row) => row['id'])).size).toBe(7);
  });

  it('keeps each member and each resource apart', async () => {
    const one = await signedIn();
    const other = await signedIn(one.tenant);
    await put(one.headers, { extra_groups: [{ group_key: 'g', field_key: 'f', field_value: 'mine' }] });
    expect((await s.api('/user/extra/data', { headers: other.headers })).body).toEqual({ items: [] });
  });

  it('skips invalid items silently and writes the valid ones', async () => {
    const { tenant, member, headers } = await signedIn();
    const emojiGroup = '😀'.repeat(64); // 64 characters, 128 UTF-16 units: within the limit
    const response = await put(headers, {
      extra_groups: [
        'not an object',
        null,
        [],
        { group_key: 'g', field_key: 'no-value' },
        { group_key: 'g', field_key: 'number', field_value: 5 },
        { group_key: 'g', field_key: 7, field_value: 'x' },
        { group_key: '   ', field_key: 'blank-group', field_value: 'x' },
        { group_key: 'g', field_key: '', field_value: 'x' },
        { group_key: 'x'.repeat(65), field_key: 'long-group', field_value: 'x' },
        { group_key: 'g', field_key: 'y'.repeat(129), field_value: 'x' },
        { group_key: 'g', field_key: 'y'.repeat(128), field_value: 'longest key', extra: 'ignored' },
        { group_key: emojiGroup, field_key: 'ключé', field_value: 'naïve \ud800 value' },
        { group_key: 'g', field_key: 'nul\u0000key', field_value: 'x' },
        { group_key: 'g', field_key: 'nul-value', field_value: 'a\u0000b' },
        { group_key: '__proto__', field_key: 'constructor', field_value: 'plain key' },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      items: {
        g: [row(member, tenant, 'g', 'y'.repeat(128), 'longest key')],
        [emojiGroup]: [row(member, tenant, emojiGroup, 'ключé', 'naïve \ufffd value')],
        ['__proto__']: [row(member, tenant, '__proto__', 'constructor', 'plain key')],
      },
    });
    expect(Object.keys(response.body['items'] as object)).toEqual(['g', emojiGroup, '__proto__']);
  });

  it('writes the largest list it accepts (50 items) within one call', async () => {
    const { headers } = await signedIn();
    const extra_groups = Array.from({ length: 50 }, (_, i) => ({ group_key: `g${i % 3}`, field_key: `f${i}`, field_value: `${i}` }));
    const response = await put(headers, { extra_groups });
    expect(response.status).toBe(200);
    const groups = response.body['items'] as Record<string, unknown[]>;
    expect(Object.values(groups).flat()).toHaveLength(50);
  });

  it('skips items with nested values, and answers a body nested past the JSON depth limit as missing (never a 500)', async () => {
    const { headers } = await signedIn();
    const nested = { group_key: 'g', field_key: 'f', field_value: { a: { b: [1] } } };
    for (const extraGroups of [[[[]]], [nested]]) {
      const response = await put(headers, { extra_groups: extraGroups });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ items: [] });
    }
    const depth = 100_000;
    for (const raw of [
      `{"extra_groups":[${'['.repeat(depth)}${']'.repeat(depth)}]}`,
      `{"extra_groups":[{"group_key":"g","field_key":"f","field_value":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}]}`,
      `{"extra_groups":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`,
    ]) {
      const response = await s.api('/user/extra/data', { method: 'PUT', headers: { ...headers, 'content-type': 'application/json' }, raw });
      expect(response.status).toBe(409);
      expect(response.body).toEqual(errorBody('incorrect_data'));
    }
  });

  it('answers a list of only invalid items with the current groups', async () => {
    const { headers } = await signedIn();
    const response = await put(headers, { extra_groups: [{ group_key: 'g' }] });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ items: [] });
  });

  it('refuses a missing, empty or malformed extra_groups with 409 incorrect_data', async () => {
    const { headers } = await signedIn();
    const bodies: Array<{ json?: unknown; raw?: string; form?: Record<string, string> }> = [
      {},
      { json: {} },
      { json: { extra_groups: [] } },
      { json: { extra_groups: {} } },
      { json: { extra_groups: 'g' } },
      { json: { extra_groups: null } },
      { json: [{ group_key: 'g', field_key: 'f', field_value: 'v' }] },
      { raw: '{"extra_groups": [' },
      { form: { 'extra_groups[0][group_key]': 'g', 'extra_groups[0][field_key]': 'f', 'extra_groups[0][field_value]': 'v' } },
      { json: { extra_groups: Array.from({ length: 51 }, (_, i) => ({ group_key: 'g', field_key: `f${i}`, field_value: 'v' })) } },
    ];
    for (const method of ['PUT', 'DELETE']) {
      for (const body of bodies) {
        const response = await s.api('/user/extra/data', {
          method,
          headers: { ...headers, ...(body.raw !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...body,
        });
        expect({ method, body, status: response.status }).toEqual({ method, body, status: 409 });
        expect(response.body).toEqual(errorBody('incorrect_data'));
      }
    }
    expect((await s.api('/user/extra/data', { headers })).body).toEqual({ items: [] });
  });

  it('deletes the named fields and answers {}', async () => {
    const { tenant, member, headers } = await signedIn();
    await put(headers, {
      extra_groups: [
        { group_key: 'a', field_key: 'one', field_value: '1' },
        { group_key: 'a', field_key: 'two', field_value: '2' },
        { group_key: 'b', field_key: 'one', field_value: '3' },
      ],
    });
    const response = await remove(headers, {
      extra_groups: [{ group_key: ' a ', field_key: 'one' }, { group_key: 'b', field_key: 'missing' }, { field_key: 'invalid' }],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({});
    expect((await s.api('/user/extra/data', { headers })).body).toEqual({
      items: { a: [row(member, tenant, 'a', 'two', '2')], b: [row(member, tenant, 'b', 'one', '3')] },
    });
    // Deleting what is already gone succeeds again.
    expect((await remove(headers, { extra_groups: [{ group_key: 'a', field_key: 'one' }] })).status).toBe(200);
  });

  it('announces each field written and each field deleted', async () => {
    const { tenant, member, headers } = await signedIn();
    const updated = collectEvents(s.nats, 'user_extra_data_updated');
    const deleted = collectEvents(s.nats, 'user_extra_data_deleted');
    await s.nats.flush();
    // A random group tells this test's events apart from the file's other tests'.
    const group = `g-${randomUUID()}`;
    const ours = (events: Array<Record<string, unknown>>) =>
      events.filter((event) => (event['payload'] as Record<string, unknown>)['group_key'] === group);
    const written = await put(headers, {
      extra_groups: [
        { group_key: group, field_key: 'a', field_value: '1' },
        { group_key: group, field_key: 'b', field_value: '2' },
        { group_key: group, field_key: 'a', field_value: '3' },
      ],
    });
    const [rowA, rowB] = (written.body['items'] as Record<string, Array<{ id: number }>>)[group]!;
    const seen = await eventually(async () => (ours(updated).length >= 3 ? ours(updated) : undefined));
    const envelope = { id: expect.any(String), name: 'user_extra_data_updated', source: 'identity', occurred_at: anyIsoDate };
    const payload = { user_id: member.id, group_key: group };
    expect(seen).toEqual([
      {
        ...envelope,
        resource_id: tenant.resourceId,
        payload: { ...payload, extra_data_id: rowA!.id, field_key: 'a', field_value: '1', created: true },
      },
      {
        ...envelope,
        resource_id: tenant.resourceId,
        payload: { ...payload, extra_data_id: rowB!.id, field_key: 'b', field_value: '2', created: true },
      },
      {
        ...envelope,
        resource_id: tenant.resourceId,
        payload: { ...payload, extra_data_id: rowA!.id, field_key: 'a', field_value: '3', created: false },
      },
    ]);

    await remove(headers, {
      extra_groups: [
        { group_key: group, field_key: 'b' },
        { group_key: group, field_key: 'missing' },
      ],
    });
    const gone = await eventually(async () => (ours(deleted).length >= 1 ? ours(deleted) : undefined));
    expect(gone).toEqual([
      {
        ...envelope,
        name: 'user_extra_data_deleted',
        resource_id: tenant.resourceId,
        payload: { ...payload, extra_data_id: rowB!.id, field_key: 'b' },
      },
    ]);
  });

  it('answers 409 user_not_exists to a member without a relationship with the resource', async () => {
    const { tenant, member, headers } = await signedIn();
    // No API deletes a relationship: arranged in the database. A session of another resource
    // never gets this far (401 auth_failed, docs/adr/0085).
    await s
      .db('identity')
      .collection('relationships')
      .deleteOne({ _id: `${tenant.resourceId}:${member.id}` as never });
    const item = { group_key: 'g', field_key: 'f', field_value: 'v' };
    const calls = [
      s.api('/user/extra/data', { headers }),
      put(headers, { extra_groups: [item] }),
      remove(headers, { extra_groups: [item] }),
      s.api('/user/extra/data/custom-fields', { headers }),
      put(headers, { custom_fields: [item] }, '/user/extra/data/custom-fields'),
      s.api('/user/extra/data/custom-fields/f', { method: 'DELETE', headers }),
    ];
    for (const response of await Promise.all(calls)) {
      expect(response.status).toBe(409);
      expect(response.body).toEqual(errorBody('user_not_exists'));
    }
  });

  it('needs a member session', async () => {
    const tenant = await createTenant(s.stack);
    const response = await s.api('/user/extra/data', { headers: { resource: tenant.publicKey } });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(errorBody('auth_failed'));
  });

  it('answers a row it cannot read with the operation error, never a 500', async () => {
    const { tenant, member, headers } = await signedIn();
    // A damaged row, as another writer of the database could leave it.
    await s
      .db('identity')
      .collection('extra_data')
      .insertOne({
        _id: 900_000_000 + Math.floor(Math.random() * 1_000_000),
        resource_id: tenant.resourceId,
        user_id: member.id,
        group_key: 'g',
        field_key: 'damaged',
        field_value: 'v',
        created_at: 'not a date',
        updated_at: 'not a date',
      } as never);
    const read = await s.api('/user/extra/data', { headers });
    expect(read.status).toBe(409);
    expect(read.body).toEqual(errorBody('error_get_user_extra_data'));
    const write = await put(headers, { extra_groups: [{ group_key: 'g', field_key: 'f', field_value: 'v' }] });
    expect(write.status).toBe(409);
    expect(write.body).toEqual(errorBody('error_update_user_extra_data'));
  });

  describe('custom fields (the reserved custom_fields group)', () => {
    const putCustom = (headers: Record<string, string>, json: unknown) => put(headers, json, '/user/extra/data/custom-fields');

    it('writes, lists and deletes rows of the custom_fields group', async () => {
      const { tenant, member, headers } = await signedIn();
      await put(headers, { extra_groups: [{ group_key: 'other', field_key: 'kept', field_value: 'x' }] });
      const written = await putCustom(headers, {
        custom_fields: [
          { field_key: ' company ', field_value: ' Acme ' },
          { field_key: 'team size', field_value: '12', group_key: 'ignored' },
          { field_key: 'no value' },
        ],
      });
      expect(written.status).toBe(200);
      const custom = [row(member, tenant, 'custom_fields', 'company', 'Acme'), row(member, tenant, 'custom_fields', 'team size', '12')];
      expect(written.body).toEqual({ items: custom });
      expect((await s.api('/user/extra/data/custom-fields', { headers })).body).toEqual({ items: custom });
      expect((await s.api('/user/extra/data', { headers })).body).toEqual({
        items: { other: [row(member, tenant, 'other', 'kept', 'x')], custom_fields: custom },
      });

      const deleted = await s.api(`/user/extra/data/custom-fields/${encodeURIComponent('team size')}`, { method: 'DELETE', headers });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({});
      expect((await s.api('/user/extra/data/custom-fields', { headers })).body).toEqual({ items: [custom[0]] });
      // A field that is not there: the same success.
      expect((await s.api('/user/extra/data/custom-fields/absent', { method: 'DELETE', headers })).body).toEqual({});
    });

    it('reaches a Unicode field key through the path', async () => {
      const { headers } = await signedIn();
      const key = 'städte 🏙️';
      await putCustom(headers, { custom_fields: [{ field_key: key, field_value: 'v' }] });
      const deleted = await s.api(`/user/extra/data/custom-fields/${encodeURIComponent(key)}`, { method: 'DELETE', headers });
      expect(deleted.status).toBe(200);
      expect((await s.api('/user/extra/data/custom-fields', { headers })).body).toEqual({ items: [] });
    });

    it('refuses missing or empty custom_fields and an over-long path key with 409 incorrect_data', async () => {
      const { headers } = await signedIn();
      for (const json of [
        {},
        { custom_fields: [] },
        { custom_fields: 'x' },
        { extra_groups: [{ group_key: 'g', field_key: 'f', field_value: 'v' }] },
      ]) {
        const response = await putCustom(headers, json);
        expect(response.status).toBe(409);
        expect(response.body).toEqual(errorBody('incorrect_data'));
      }
      for (const key of ['k'.repeat(129), '%20%20']) {
        const response = await s.api(`/user/extra/data/custom-fields/${key}`, { method: 'DELETE', headers });
        expect(response.status).toBe(409);
        expect(response.body).toEqual(errorBody('incorrect_data'));
      }
    });

    it('answers a malformed percent-encoded path key without a 500', async () => {
      const { headers } = await signedIn();
      const response = await s.api('/user/extra/data/custom-fields/%E0%A4%A', { method: 'DELETE', headers });
      expect(response.status).toBe(400);
      expect(response.body).toEqual(errorBody('malformed_path'));
    });
  });
});
