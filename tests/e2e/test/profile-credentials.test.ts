import { mkdtempSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMember, createTenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { jpeg, png } from './images.js';
import { memberProjection, signedIn, signIn } from './profile-support.js';
import { anyRequestId, collectEvents, eventually, useStack, type StackHandle } from './support.js';

const PHOTO_DIR = mkdtempSync(join(tmpdir(), 'masthead-photos-'));
const PHOTO_URL = 'https://cdn.example.test/photos';
const MAX_BYTES = 64 * 1024;

/** Resource passwords and photo upload (document 1, section C; docs/adr/0062, 0063). */
describe('member credentials and photo', () => {
  // Session checks cached for a minute (ADR 0042): a revoked session must still fail at once.
  const s = useStack({
    env: { PHOTO_STORAGE_DIR: PHOTO_DIR, PHOTO_PUBLIC_URL: PHOTO_URL, PHOTO_MAX_BYTES: String(MAX_BYTES), AUTH_CACHE_TTL_MS: '60000' },
  });
  const resourcePassword = 'a resource passphrase';

  describe('resource password', () => {
    it('sets the initial resource password once, which then replaces the global one at sign-in here', async () => {
      const { tenant, member, headers } = await signedIn(s);
      expect(await s.api('/user/has-password', { headers })).toMatchObject({ status: 200, body: { result: false } });

      const weak = await s.api('/user/password', { headers, json: { password: 'Password1' } });
      expect(weak.status).toBe(409);
      expect(weak.body).toEqual({
        error: 'invalid_password',
        error_description: 'This password is too common; choose another',
        req_guid: anyRequestId,
      });

      const set = await s.api('/user/password', { headers, form: { password: resourcePassword } });
      expect(set).toMatchObject({ status: 200, body: { result: true } });
      expect((await s.api('/user/has-password', { headers })).body).toEqual({ result: true });

      const again = await s.api('/user/password', { headers, json: { password: 'another passphrase' } });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({
        error: 'password_already_set',
        error_description: 'A resource password is already set; change it with PUT /user/password',
        req_guid: anyRequestId,
      });
      expect((await signIn(s, tenant, member.email, member.password)).status).toBe(401);
      expect((await signIn(s, tenant, member.email, resourcePassword)).status).toBe(200);
      // Elsewhere the global password still counts.
      const other = await createTenant(s.stack);
      await createMember(s.stack, other, { email: member.email, password: member.password });
      expect((await signIn(s, other, member.email, member.password)).status).toBe(200);
    });

    it('refuses a change while no resource password is set', async () => {
      const { member, headers } = await signedIn(s);
      const response = await s.api('/user/password', {
        method: 'PUT',
        headers,
        json: { current_password: member.password, password: resourcePassword },
      });
      expect(response.status).toBe(409);
      expect(response.body).toEqual({
        error: 'password_not_set',
        error_description: 'No resource password is set; set one with POST /user/password',
        req_guid: anyRequestId,
      });
    });

    it('changes it with the current one, keeps this session and revokes the others here', async () => {
      const { tenant, member, headers } = await signedIn(s);
      await s.api('/user/password', { headers, json: { password: resourcePassword } });
      const otherToken = (await signIn(s, tenant, member.email, resourcePassword)).body['token'] as string;
      const other = { resource: tenant.publicKey, token: otherToken };
      expect((await s.api('/user', { headers: other })).status).toBe(200);
      const events = collectEvents(s.nats, 'user_password_changed');
      await s.nats.flush();

      const changed = await s.api('/user/password', {
        method: 'PUT',
        headers,
        json: { current_password: resourcePassword, password: 'a brand new passphrase' },
      });
      expect(changed).toMatchObject({ status: 200, body: { result: true, revoked_sessions: 1 } });
      expect((await s.api('/user', { headers })).status).toBe(200);
      const revoked = await eventually(async () => {
        const response = await s.api('/user', { headers: other });
        return response.status === 401 ? response : undefined;
      }, 2000);
      expect(revoked.body).toMatchObject({ error: 'token_expired' });
      expect((await signIn(s, tenant, member.email, resourcePassword)).status).toBe(401);
      expect((await signIn(s, tenant, member.email, 'a brand new passphrase')).status).toBe(200);

      const event = await eventually(async () =>
        events.find(
          (candidate) =>
            (candidate['payload'] as { user_id: number }).user_id === member.id && candidate['resource_id'] === tenant.resourceId,
        ),
      );
      expect(event).toMatchObject({ name: 'user_password_changed', payload: { user_id: member.id, initial: false, revoked_sessions: 1 } });
    });

    it('refuses a wrong current password, then throttles guessing like sign-in', async () => {
      const { headers } = await signedIn(s);
      await s.api('/user/password', { headers, json: { password: resourcePassword } });
      const attempt = () =>
        s.api('/user/password', { method: 'PUT', headers, json: { current_password: 'wrong guess', password: 'a brand new passphrase' } });
      const missing = await s.api('/user/password', { method: 'PUT', headers, json: { password: 'a brand new passphrase' } });
      expect(missing.body).toEqual({
        error: 'invalid_current_password',
        error_description: 'current_password is required',
        req_guid: anyRequestId,
      });
      for (let i = 0; i < 6; i++) {
        const wrong = await attempt();
        expect(wrong.status).toBe(409);
        expect(wrong.body).toEqual({
          error: 'invalid_current_password',
          error_description: 'The current password is not correct',
          req_guid: anyRequestId,
        });
      }
      const throttled = await attempt();
      expect(throttled.status).toBe(429);
      expect(throttled.body).toMatchObject({ error: 'too_many_attempts' });
    });

    it.each([
      [{ password: true }, 'invalid_password'],
      [{}, 'invalid_password'],
      [{ password: 'short' }, 'invalid_password'],
    ])('POST /user/password %j → 409 %s', async (json, error) => {
      const { headers } = await signedIn(s);
      const response = await s.api('/user/password', { headers, json });
      expect(response.status).toBe(409);
      expect(response.body).toEqual({ error, error_description: expect.any(String), req_guid: anyRequestId });
    });
  });

  describe('photo', () => {
    it('stores a PNG, points the user at it, then replaces it with a JPEG and removes the old file', async () => {
      const { member, headers } = await signedIn(s);
      const image = png(8, 6);
      const first = await upload(s, headers, image, 'avatar.png', 'image/png');
      expect(first.status).toBe(200);
      expect(first.body).toEqual(
        memberProjection(member, { photo: expect.stringMatching(new RegExp(`^${PHOTO_URL}/${member.id}-[0-9a-f]{24}\\.png$`)) }),
      );
      const firstName = (first.body['photo'] as string).slice(PHOTO_URL.length + 1);
      expect(await readFile(join(PHOTO_DIR, firstName))).toEqual(image);
      expect((await s.api('/user', { headers })).body).toMatchObject({ photo: first.body['photo'] });

      // The type comes from the bytes, not from the name or content type the client gave.
      const second = await upload(s, headers, jpeg(), 'avatar.png', 'image/png');
      expect(second.status).toBe(200);
      expect(second.body['photo']).toMatch(new RegExp(`^${PHOTO_URL}/${member.id}-[0-9a-f]{24}\\.jpg$`));
      const files = await readdir(PHOTO_DIR);
      expect(files).not.toContain(firstName);
      expect(files).toContain((second.body['photo'] as string).slice(PHOTO_URL.length + 1));
    });

    it('answers 413 photo_too_large beyond PHOTO_MAX_BYTES and stores nothing', async () => {
      const { headers } = await signedIn(s);
      const large = png(160, 160, true);
      expect(large.length).toBeGreaterThan(MAX_BYTES);
      const response = await upload(s, headers, large, 'large.png', 'image/png');
      expect(response.status).toBe(413);
      expect(response.body).toEqual({
        error: 'photo_too_large',
        error_description: 'The photo is larger than this service accepts',
        req_guid: anyRequestId,
      });
      // Far over the limit, the body is not read to its end.
      const huge = await upload(s, headers, png(320, 320, true), 'huge.png', 'image/png');
      expect(huge).toEqual({ status: 413, body: { ...response.body, req_guid: anyRequestId } });
      expect((await s.api('/user', { headers })).body).toMatchObject({ photo: null });
    });

    it.each([
      ['an SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'), 'image/svg+xml'],
      ['text named as a PNG', Buffer.from('not an image at all, just text'), 'image/png'],
      ['a PDF', Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n'), 'application/pdf'],
    ])('answers 415 for %s', async (_label, content, type) => {
      const { headers } = await signedIn(s);
      const response = await upload(s, headers, content, 'photo.png', type);
      expect(response.status).toBe(415);
      expect(response.body).toEqual({
        error: 'unsupported_photo_type',
        error_description: 'The photo must be a JPEG, PNG, WebP or GIF image',
        req_guid: anyRequestId,
      });
    });

    it('answers 422 invalid_photo for an image wider than 4096 pixels', async () => {
      const { headers } = await signedIn(s);
      const response = await upload(s, headers, png(5000, 1), 'wide.png', 'image/png');
      expect(response.status).toBe(422);
      expect(response.body).toEqual({
        error: 'invalid_photo',
        error_description: 'The image is larger than 4096×4096 pixels',
        req_guid: anyRequestId,
      });
    });

    it('answers 409 photo_required without a multipart photo field', async () => {
      const { headers } = await signedIn(s);
      const expected = {
        error: 'photo_required',
        error_description: 'Send the image as the multipart/form-data field photo',
        req_guid: anyRequestId,
      };
      expect((await s.api('/user/photo', { headers, json: { photo: 'data:image/png;base64,AAAA' } })).body).toEqual(expected);
      const otherField = await upload(s, headers, png(2, 2), 'a.png', 'image/png', 'avatar');
      expect(otherField.status).toBe(409);
      expect(otherField.body).toEqual(expected);
      const broken = await fetch(`${s.stack.baseUrl}/user/photo`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'multipart/form-data; boundary=xyz' },
        body: '--xyz\r\nbroken',
      });
      expect(broken.status).toBe(409);
    });

    it('needs a signed-in member', async () => {
      const tenant = await createTenant(s.stack);
      const response = await upload(s, { resource: tenant.publicKey }, png(2, 2), 'a.png', 'image/png');
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ error: 'auth_failed' });
    });
  });
});

/** A multipart/form-data POST /user/photo, as a browser form would send it. */
async function upload(s: StackHandle, headers: Record<string, string>, content: Buffer, name: string, type: string, field = 'photo') {
  const form = new FormData();
  form.append(field, new Blob([new Uint8Array(content)], { type }), name);
  const response = await fetch(`${s.stack.baseUrl}/user/photo`, { method: 'POST', headers, body: form });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
