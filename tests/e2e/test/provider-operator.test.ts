import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { hexId } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { audienceKey, crmKey, newTenant, signIn, useProviders } from './provider-support.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The operator path of the email-list and CRM providers (docs/adr/0164): the admin CLI stores a
 * secret from standard input and never prints it, sets settings, imports CRM tags and manages the
 * list manager's lists; a member then uses what the operator configured.
 */
describe('provider configuration through the admin CLI', () => {
  const p = useProviders();
  const s = () => p.s;

  /** Runs `masthead-admin` with `stdin` on its standard input; stdout parsed as JSON. */
  const cli = (args: string[], stdin = '') =>
    new Promise<{ code: number; json: unknown; stdout: string; stderr: string }>((resolve, reject) => {
      const child = execFile(
        process.execPath,
        ['tools/admin/dist/cli.js', ...args],
        { cwd: repoRoot, env: { ...process.env, ...s().stack.env, MASTHEAD_ENV: 'development' } },
        (error, stdout, stderr) => {
          const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
          let json: unknown;
          try {
            json = JSON.parse(stdout);
          } catch {
            json = undefined;
          }
          resolve({ code, json, stdout, stderr });
        },
      );
      child.on('error', reject);
      child.stdin?.end(stdin);
    });

  it('stores provider secrets from standard input, shows only their last four characters, and a member uses them', async () => {
    const tenant = await newTenant(s());
    const resourceId = String(tenant.resourceId);
    const key = audienceKey();
    const listId = hexId();
    p.audience.account(key).list(listId).category('News', ['Daily']);
    const stored = await cli(['set-provider-secret', '--resource-id', resourceId, '--provider', 'audience'], `${key}\n`);
    expect(stored.code, stored.stderr).toBe(0);
    expect(stored.json).toEqual({
      resource_id: tenant.resourceId,
      provider: 'audience',
      has_secret: true,
      secret_last4: key.slice(-4),
      key_id: 'dev',
      settings: {},
      updated_at: expect.any(String),
    });
    const settings = await cli(['set-audience-settings', '--resource-id', resourceId, '--list-id', listId, '--interest-category', 'News']);
    expect(settings.json).toMatchObject({ settings: { list_id: listId, interest_category: 'News', server: '' } });
    const shown = await cli(['show-provider-config', '--resource-id', resourceId, '--provider', 'audience']);
    expect(shown.json).toEqual({
      ...(stored.json as object),
      settings: { list_id: listId, interest_category: 'News', server: '' },
      updated_at: expect.any(String),
    });
    for (const output of [stored, settings, shown]) expect(output.stdout + output.stderr).not.toContain(key);
    const member = await signIn(s(), tenant);
    expect((await s().api('/integrations/audience/interests', { headers: member.headers })).body).toEqual({
      items: [{ id: expect.any(String), name: 'daily', subscriber_count: '0' }],
    });
    // No secret on the command line, and none on an empty standard input.
    const empty = await cli(['set-provider-secret', '--resource-id', resourceId, '--provider', 'crm'], '');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('pipe the provider secret on standard input');
  });

  it('imports CRM tags, sets their flags and lists them', async () => {
    const tenant = await newTenant(s());
    const resourceId = String(tenant.resourceId);
    const key = crmKey();
    const account = p.crm.account(key);
    const vip = account.tag('VIP', { description: 'Very important' });
    account.tag('Newsletter', { tagType: 'template' });
    expect((await cli(['set-provider-secret', '--resource-id', resourceId, '--provider', 'crm'], key)).code).toBe(0);
    expect((await cli(['set-crm-settings', '--resource-id', resourceId, '--account-name', 'acme', '--active'])).json).toMatchObject({
      settings: { account_name: 'acme', active: true },
    });
    const imported = await cli(['import-crm-tags', '--resource-id', resourceId]);
    expect(imported.json).toEqual([
      {
        id: expect.any(Number),
        tag_id: vip.id,
        tag_type: 'contact',
        tag: 'VIP',
        description: 'Very important',
        subscriber_count: 0,
        allowed_for_users: false,
        required: false,
      },
      {
        id: expect.any(Number),
        tag_id: expect.any(String),
        tag_type: 'template',
        tag: 'Newsletter',
        description: '',
        subscriber_count: 0,
        allowed_for_users: false,
        required: false,
      },
    ]);
    const flagged = await cli(['set-crm-tag-flags', '--resource-id', resourceId, '--tag-id', vip.id, '--allowed-for-users']);
    expect(flagged.json).toMatchObject({ tag: 'VIP', allowed_for_users: true, required: false });
    // A second import updates the provider's side and keeps the flags.
    account.addContactTag('nobody@example.test', vip.id);
    const again = (await cli(['import-crm-tags', '--resource-id', resourceId])).json as Array<Record<string, unknown>>;
    expect(again[0]).toMatchObject({ tag_id: vip.id, allowed_for_users: true });
    expect((await cli(['list-crm-tags', '--resource-id', resourceId])).json).toEqual(again);
    const unknown = await cli(['set-crm-tag-flags', '--resource-id', resourceId, '--tag-id', '999999']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('crm_tag_not_found');
  });

  it("manages the list manager's lists and shows a member's cached states", async () => {
    const tenant = await newTenant(s());
    const resourceId = String(tenant.resourceId);
    const tokens = { access_token: hexId(24), refresh_token: hexId(24) };
    const account = p.listmgr.account(tokens.access_token, tokens.refresh_token);
    const listId = hexId(32);
    account.list(listId);
    expect((await cli(['set-provider-secret', '--resource-id', resourceId, '--provider', 'listmgr'], JSON.stringify(tokens))).code).toBe(0);
    const settings = await cli([
      'set-listmgr-settings',
      '--resource-id',
      resourceId,
      '--custom-field',
      'City=city',
      '--consent-to-track',
      'Yes',
    ]);
    expect(settings.json).toMatchObject({
      settings: { client_id: '', custom_fields: [{ key: 'City', source: 'city' }], consent_to_track: 'Yes' },
    });
    expect(settings.stdout).not.toContain(tokens.access_token);
    const list = await cli([
      'set-listmgr-list',
      '--resource-id',
      resourceId,
      '--list-id',
      listId,
      '--list-name',
      'Weekly',
      '--show-list',
      '--confirmed-opt',
    ]);
    expect(list.json).toEqual({
      id: expect.any(Number),
      list_id: listId,
      list_name: 'Weekly',
      client_name: '',
      confirmed_opt: true,
      unsubscribe_settings: '',
      show_list: true,
      require_list: false,
      allowed_list: false,
    });
    const member = await signIn(s(), tenant);
    const subscribed = await s().api('/integrations/listmgr/subscribe', {
      method: 'POST',
      headers: member.headers,
      json: { lists: [listId] },
    });
    expect(subscribed.status, subscribed.text).toBe(200);
    expect(p.listmgr.calls.at(-2)?.body).toMatchObject({ CustomFields: [{ Key: 'City', Value: '' }], ConsentToTrack: 'Yes' });
    const state = await cli(['show-listmgr-state', '--resource-id', resourceId, '--email', member.email]);
    expect(state.json).toEqual({ states: [{ list_id: listId, state: 'Active' }], expires_at: expect.any(String) });
    expect((await cli(['list-listmgr-lists', '--resource-id', resourceId])).json).toEqual([list.json]);
    expect((await cli(['remove-listmgr-list', '--resource-id', resourceId, '--list-id', listId])).json).toEqual(list.json);
    expect((await cli(['list-listmgr-lists', '--resource-id', resourceId])).json).toEqual([]);
    const gone = await cli(['remove-listmgr-list', '--resource-id', resourceId, '--list-id', listId]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('listmgr_list_not_found');
  });
});
