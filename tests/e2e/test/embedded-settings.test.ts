import { randomBytes } from 'node:crypto';
import { createTenant } from '@masthead/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { adminCli, integrationsOperator } from './integrations-platform-support.js';
import { anyRequestId, eventually, grpcCallCounter, useStack } from './support.js';

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** Counts the gateway's outgoing gRPC calls (DESIGN.md "Hot paths"). */
const { calls, counter } = grpcCallCounter();

/** Document 2 K: templates, resource settings and captcha settings, through the gateway. */
describe('embedded integration settings', () => {
  const s = useStack({ gatewayInterceptors: [counter] });
  let operator: ReturnType<typeof integrationsOperator>;
  const ops = () => (operator ??= integrationsOperator(s));
  afterAll(() => operator?.close());

  const template = (resourceId: number, name: string, version: string, fields: Partial<Record<'active' | 'published', boolean>> = {}) =>
    ops().templates.upsertTemplate({
      resourceId,
      name,
      version,
      title: `${name} ${version}`,
      slug: `${name}-${version}`,
      template: `<div class="${name}">v${version} — ünïcode</div>`,
      javascript: `console.log("${version}")`,
      css: `.${name} { color: red }`,
      settings: { version, nested: { n: 1, list: [true, null] } },
      active: fields.active ?? true,
      published: fields.published ?? true,
    });

  const expectedTemplate = (name: string, version: string) => ({
    name,
    title: `${name} ${version}`,
    slug: `${name}-${version}`,
    template: base64(`<div class="${name}">v${version} — ünïcode</div>`),
    javascript: base64(`console.log("${version}")`),
    css: base64(`.${name} { color: red }`),
    settings: { version, nested: { n: 1, list: [true, null] } },
  });

  const getTemplate = (publicKey: string, path: string, query?: string) =>
    s.api(`/integrations/templates/${path}`, { headers: { resource: publicKey }, query });

  describe('GET /integrations/templates/{name}', () => {
    it('answers the active published template with its HTML, script and styles in base64', async () => {
      const tenant = await createTenant(s.stack);
      await template(tenant.resourceId, 'paywall', '1');
      const response = await getTemplate(tenant.publicKey, 'paywall');
      expect(response.status).toBe(200);
      expect(response.body).toEqual(expectedTemplate('paywall', '1'));
    });

    it('selects by `v`: that version even inactive, else an active one; never an unpublished one', async () => {
      const tenant = await createTenant(s.stack);
      await template(tenant.resourceId, 'promo', '1');
      await template(tenant.resourceId, 'promo', '2', { active: false });
      await template(tenant.resourceId, 'promo', '3', { active: false, published: false });
      await template(tenant.resourceId, 'promo', '4', { active: true, published: false });

      expect((await getTemplate(tenant.publicKey, 'promo')).body).toEqual(expectedTemplate('promo', '1'));
      // The inactive published version 2, by `v` (trimmed).
      expect((await getTemplate(tenant.publicKey, 'promo', 'v=%202%20')).body).toEqual(expectedTemplate('promo', '2'));
      // An unpublished version is not served; the active published one stays eligible.
      expect((await getTemplate(tenant.publicKey, 'promo', 'v=3')).body).toEqual(expectedTemplate('promo', '1'));
      expect((await getTemplate(tenant.publicKey, 'promo', 'v=99')).body).toEqual(expectedTemplate('promo', '1'));
      expect((await getTemplate(tenant.publicKey, 'promo', 'v=')).body).toEqual(expectedTemplate('promo', '1'));
      // The name is trimmed.
      expect((await getTemplate(tenant.publicKey, '%20promo%20')).body).toEqual(expectedTemplate('promo', '1'));
    });

    it('answers 404 template_not_found without req_guid: unknown, only inactive, only unpublished, bad name', async () => {
      const tenant = await createTenant(s.stack);
      await template(tenant.resourceId, 'dormant', '1', { active: false });
      await template(tenant.resourceId, 'draft', '1', { published: false });
      for (const [path, query] of [['missing'], ['dormant'], ['draft'], ['draft', 'v=1'], ['bad.name'], ['%20']] as const) {
        const response = await getTemplate(tenant.publicKey, path, query);
        expect({ path, query, status: response.status, body: response.body }).toEqual({
          path,
          query,
          status: 404,
          body: { error: 'template_not_found', error_description: 'Template not found' },
        });
      }
    });

    it('answers 404 resource_not_exists without a resource or with an unknown one', async () => {
      for (const headers of [{}, { resource: `nope-${randomBytes(4).toString('hex')}` }] as Array<Record<string, string>>) {
        const response = await s.api('/integrations/templates/paywall', { headers });
        expect(response.status).toBe(404);
        expect(response.body).toEqual({
          error: 'resource_not_exists',
          error_description: 'Resource does not exist',
          req_guid: anyRequestId,
        });
      }
    });

    it("never serves another resource's template", async () => {
      const [mine, theirs] = [await createTenant(s.stack), await createTenant(s.stack)];
      await template(theirs.resourceId, 'secret-offer', '1');
      expect((await getTemplate(mine.publicKey, 'secret-offer')).status).toBe(404);
      expect((await getTemplate(theirs.publicKey, 'secret-offer')).status).toBe(200);
    });
  });

  describe('GET /integrations/resource-settings', () => {
    it('inherits resource over partner over defaults, drops internal keys, adds logo', async () => {
      const tenant = await createTenant(s.stack, {
        settings: {
          single_subscription: true,
          default_subscription_id: 12,
          logo: 'https://cdn.example.test/logo.png',
          device_limit: 3,
          compromised_session_action: 'lock',
          auto_attach_customer_to_resource: false,
          webhook_secret: 'never-shown',
          custom_flag: 'resource',
        },
      });
      await s.stack.operator.accounts.setPartnerSettings({
        partnerId: tenant.partnerId,
        settings: { single_subscription: false, delay_downgrade: true, partner_flag: 7, custom_flag: 'partner', partner_api_key: 'x' },
      });
      const response = await eventually(async () => {
        const answer = await s.api('/integrations/resource-settings', { headers: { resource: tenant.publicKey } });
        return answer.body && (answer.body as Record<string, unknown>)['partner_flag'] === 7 ? answer : undefined;
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        default_subscription_id: 12,
        default_guest_subscription_id: null,
        single_subscription: true,
        default_autorenewal_subscription: false,
        default_autorenewal_teams_subscription: false,
        delay_downgrade: true,
        default_paysystem: 'cardprovider',
        payments_in_live_mode: true,
        idp_auth: false,
        idp_docstore: false,
        partner_flag: 7,
        custom_flag: 'resource',
        logo: 'https://cdn.example.test/logo.png',
      });
    });

    it('answers logo null when none is configured, and follows a partner change at once', async () => {
      const tenant = await createTenant(s.stack, { settings: { payments_in_live_mode: false } });
      const first = await s.api('/integrations/resource-settings', { headers: { resource: tenant.publicKey } });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ payments_in_live_mode: false, logo: null, delay_downgrade: false });
      await s.stack.operator.accounts.setPartnerSettings({
        partnerId: tenant.partnerId,
        settings: { logo: 'https://partner.example.test/l.svg' },
      });
      // The cached copy is dropped by the `resource_updated` accounts announces for the partner's resources.
      await eventually(async () => {
        const answer = await s.api('/integrations/resource-settings', { headers: { resource: tenant.publicKey } });
        return (answer.body as Record<string, unknown>)['logo'] === 'https://partner.example.test/l.svg' ? true : undefined;
      });
    });

    it('answers 401 with an empty array without a resource, 404 resource_not_exists for an unknown key', async () => {
      const none = await s.api('/integrations/resource-settings');
      expect(none.status).toBe(401);
      expect(none.body).toEqual([]);
      const unknown = await s.api('/integrations/resource-settings', { headers: { resource: `nope-${randomBytes(4).toString('hex')}` } });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: 'resource_not_exists', error_description: 'Resource does not exist', req_guid: anyRequestId });
    });

    it("never shows another partner's settings", async () => {
      const [mine, theirs] = [await createTenant(s.stack), await createTenant(s.stack)];
      await s.stack.operator.accounts.setPartnerSettings({ partnerId: theirs.partnerId, settings: { their_secret_plan: 1 } });
      const response = await s.api('/integrations/resource-settings', { headers: { resource: mine.publicKey } });
      expect(response.status).toBe(200);
      expect(response.body).not.toHaveProperty('their_secret_plan');
    });
  });

  describe('GET /integrations/resource/captcha-settings', () => {
    const captcha = (publicKey: string) => s.api('/integrations/resource/captcha-settings', { headers: { resource: publicKey } });

    it('falls back to the global key; the flag is the resource’s; the secret never leaves', async () => {
      const [tenant, other] = [await createTenant(s.stack), await createTenant(s.stack)];
      const secret = `captcha-secret-${randomBytes(8).toString('hex')}`;
      expect((await captcha(tenant.publicKey)).body).toEqual({ active: false, captcha_public_key: null });

      // The global record (resource 0) through the admin CLI, its secret on standard input.
      const global = JSON.parse(
        (
          await adminCli(
            s,
            ['set-captcha', '--resource-id', '0', '--public-key', 'global-site-key', '--active', '--secret-key-stdin'],
            secret,
          )
        ).stdout,
      ) as Record<string, unknown>;
      expect(global).toEqual({
        resource_id: 0,
        configured: true,
        active: true,
        public_key: 'global-site-key',
        has_secret_key: true,
        secret_key_last4: secret.slice(-4),
        key_id: 'dev',
        updated_at: expect.any(String),
      });
      // A resource without a record: the global key, but not the global flag.
      expect((await captcha(tenant.publicKey)).body).toEqual({ active: false, captcha_public_key: 'global-site-key' });

      // Active without its own key: still the global key.
      await ops().captcha.setCaptchaSettings({ resourceId: tenant.resourceId, active: true });
      expect((await captcha(tenant.publicKey)).body).toEqual({ active: true, captcha_public_key: 'global-site-key' });
      // Its own key, then inactive: a key can be present while inactive.
      await ops().captcha.setCaptchaSettings({ resourceId: tenant.resourceId, publicKey: 'own-site-key', secretKey: `${secret}-own` });
      expect((await captcha(tenant.publicKey)).body).toEqual({ active: true, captcha_public_key: 'own-site-key' });
      await ops().captcha.setCaptchaSettings({ resourceId: tenant.resourceId, active: false });
      const inactive = await captcha(tenant.publicKey);
      expect(inactive.body).toEqual({ active: false, captcha_public_key: 'own-site-key' });
      // Another resource is untouched by this one's record.
      expect((await captcha(other.publicKey)).body).toEqual({ active: false, captcha_public_key: 'global-site-key' });

      // The secret is stored sealed and shown nowhere.
      const summary = await ops().captcha.getCaptchaSummary({ resourceId: tenant.resourceId });
      expect(summary).toMatchObject({ hasSecretKey: true, secretKeyLast4: '-own'.slice(-4), keyId: 'dev' });
      const stored = JSON.stringify(await s.db('integrations').collection('captcha_settings').find().toArray());
      expect(stored).not.toContain(secret);
      expect(inactive.text + JSON.stringify(summary)).not.toContain(secret);

      // An empty public key clears it: the global one shows again.
      await ops().captcha.setCaptchaSettings({ resourceId: tenant.resourceId, publicKey: '' });
      expect((await captcha(tenant.publicKey)).body).toEqual({ active: false, captcha_public_key: 'global-site-key' });
    });

    it('answers 404 resource_not_exists without a resource or with an unknown one', async () => {
      for (const headers of [{}, { resource: `nope-${randomBytes(4).toString('hex')}` }] as Array<Record<string, string>>) {
        const response = await s.api('/integrations/resource/captcha-settings', { headers });
        expect(response.status).toBe(404);
        expect(response.body).toEqual({
          error: 'resource_not_exists',
          error_description: 'Resource does not exist',
          req_guid: anyRequestId,
        });
      }
    });
  });

  it('operators set and list templates with the admin CLI', async () => {
    const tenant = await createTenant(s.stack);
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'masthead-template-'));
    await writeFile(join(dir, 'offer.html'), '<p>Offer</p>');
    await writeFile(join(dir, 'offer.js'), 'void 0;');
    await writeFile(join(dir, 'offer.css'), 'p{}');
    const args = ['--resource-id', String(tenant.resourceId), '--name', 'offer', '--title', 'Offer', '--html', join(dir, 'offer.html')];
    await adminCli(s, [
      'set-template',
      ...args,
      '--version',
      '1',
      '--js',
      join(dir, 'offer.js'),
      '--css',
      join(dir, 'offer.css'),
      '--settings',
      '{"cta":"Buy"}',
    ]);
    await adminCli(s, ['set-template', ...args, '--version', '2', '--inactive']);
    const listed = JSON.parse((await adminCli(s, ['list-templates', '--resource-id', String(tenant.resourceId)])).stdout) as unknown[];
    expect(listed).toEqual([
      expect.objectContaining({
        name: 'offer',
        version: '1',
        active: true,
        published: true,
        bytes: { template: 12, javascript: 7, css: 3 },
      }),
      expect.objectContaining({ name: 'offer', version: '2', active: false, published: true }),
    ]);
    const response = await getTemplate(tenant.publicKey, 'offer');
    expect(response.body).toEqual({
      name: 'offer',
      title: 'Offer',
      slug: null,
      template: base64('<p>Offer</p>'),
      javascript: base64('void 0;'),
      css: base64('p{}'),
      settings: { cta: 'Buy' },
    });
  });

  it('each read costs one blocking gRPC call after warm-up', async () => {
    const tenant = await createTenant(s.stack);
    await template(tenant.resourceId, 'hops', '1');
    for (const [path, service] of [
      ['/integrations/templates/hops', 'TemplatesService/GetPublishedTemplate'],
      ['/integrations/resource-settings', 'ResourceSettingsService/GetEmbeddedSettings'],
      ['/integrations/resource/captcha-settings', 'CaptchaService/GetCaptchaSettings'],
    ] as const) {
      await s.api(path, { headers: { resource: tenant.publicKey } });
      calls.length = 0;
      expect((await s.api(path, { headers: { resource: tenant.publicKey } })).status).toBe(200);
      expect(calls).toEqual([`/masthead.integrations.v1.${service}`]);
    }
  });

  it('operators set partner settings with the admin CLI', async () => {
    const tenant = await createTenant(s.stack);
    const set = await adminCli(s, [
      'set-partner-settings',
      '--partner-id',
      String(tenant.partnerId),
      '--settings',
      '{"delay_downgrade":true}',
    ]);
    expect(JSON.parse(set.stdout)).toEqual({ id: tenant.partnerId, title: expect.any(String), settings: { delay_downgrade: true } });
    await eventually(async () => {
      const answer = await s.api('/integrations/resource-settings', { headers: { resource: tenant.publicKey } });
      return (answer.body as Record<string, unknown>)['delay_downgrade'] === true ? true : undefined;
    });
    await expect(adminCli(s, ['set-partner-settings', '--partner-id', '999999', '--settings', '{}'])).rejects.toMatchObject({
      stderr: expect.stringContaining('Partner does not exist'),
    });
  });
});
