import { request as httpRequest } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { png } from './images.js';
import { signedIn } from './profile-support.js';
import { anyRequestId, useStack, type StackHandle } from './support.js';

const BODY_LIMIT_BYTES = 64 * 1024;
const PHOTO_MAX_BYTES = 256 * 1024;
const MULTIPART = 'multipart/form-data; boundary=B';

/** A body that ends inside a file part: busboy errors the file stream ("Unexpected end of file"). */
const TRUNCATED_FILE_PART = '--B\r\nContent-Disposition: form-data; name="photo"; filename="a.png"\r\n\r\nabc';

/** A whole multipart body with one file part. */
const filePart = (field: string, content: Buffer) =>
  Buffer.concat([
    Buffer.from(`--B\r\nContent-Disposition: form-data; name="${field}"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
    content,
    Buffer.from('\r\n--B--\r\n'),
  ]);

const photoRequired = {
  error: 'photo_required',
  error_description: 'Send the image as the multipart/form-data field photo',
  req_guid: anyRequestId,
};

/**
 * Multipart bodies are read only by the routes that take an upload (POST /user/photo), after the
 * shared checks and within PHOTO_MAX_BYTES; elsewhere they are any body the route does not read
 * (issue 7, item 1; docs/adr/0080).
 */
describe('multipart bodies', () => {
  const s = useStack({
    env: {
      BODY_LIMIT: `${BODY_LIMIT_BYTES / 1024}kb`,
      PHOTO_MAX_BYTES: String(PHOTO_MAX_BYTES),
      PHOTO_STORAGE_DIR: mkdtempSync(join(tmpdir(), 'masthead-photos-')),
    },
  });
  const post = (path: string, headers: Record<string, string>, body: string | Buffer) =>
    fetch(`${s.stack.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': MULTIPART, ...headers }, body }).then(
      async (response) => ({
        status: response.status,
        body: (await response.json()) as Record<string, unknown>,
      }),
    );
  const stillAnswering = async () => expect((await fetch(`${s.stack.gatewayUrl}/healthz`)).status).toBe(200);

  it('answers a body that ends inside a file part, on any path, and keeps serving', async () => {
    const tenant = await createTenant(s.stack);
    // The reproduction of the issue: no token, no resource, a path that takes no body.
    const unknown = await post('/plans', {}, TRUNCATED_FILE_PART);
    expect(unknown).toEqual({
      status: 404,
      body: { error: 'route_not_found', error_description: expect.any(String), req_guid: anyRequestId },
    });
    const guest = await post('/authorization', { resource: tenant.publicKey }, TRUNCATED_FILE_PART);
    expect(guest.status).toBe(409);
    await stillAnswering();

    const { headers } = await signedIn(s, tenant);
    expect(await post('/user/photo', headers, TRUNCATED_FILE_PART)).toEqual({ status: 409, body: photoRequired });
    await stillAnswering();
  });

  it.each([
    ['without a boundary', 'multipart/form-data', filePart('photo', png(2, 2))],
    ['with another boundary', 'multipart/form-data; boundary=other', filePart('photo', png(2, 2))],
    ['cut inside the part headers', MULTIPART, '--B\r\nContent-Disposition: form-da'],
    ['with only a preamble', MULTIPART, 'no parts at all'],
    ['with a closing delimiter but no part', MULTIPART, '--B--\r\n'],
  ])('answers 409 photo_required for a multipart body %s', async (_label, contentType, body) => {
    const { headers } = await signedIn(s);
    expect(await post('/user/photo', { ...headers, 'content-type': contentType }, body)).toEqual({ status: 409, body: photoRequired });
    await stillAnswering();
  });

  it('does not store the start of a file whose body was cut', async () => {
    const { headers } = await signedIn(s);
    const cut = filePart('photo', png(8, 8)).subarray(0, -10);
    expect(await post('/user/photo', headers, cut)).toEqual({ status: 409, body: photoRequired });
    expect((await s.api('/user', { headers })).body).toMatchObject({ photo: null });
  });

  it('holds a multipart body to BODY_LIMIT on routes that take no upload: 413', async () => {
    const tenant = await createTenant(s.stack);
    const large = filePart('photo', Buffer.alloc(BODY_LIMIT_BYTES * 2, 'a'));
    const expected = { status: 413, body: { error: 'request_too_large', error_description: expect.any(String), req_guid: anyRequestId } };
    expect(await post('/plans', {}, large)).toEqual(expected);
    expect(await post('/authorization', { resource: tenant.publicKey }, large)).toEqual(expected);
    // The photo route keeps its own, larger limit.
    const { headers } = await signedIn(s, tenant);
    const photo = await post('/user/photo', headers, filePart('photo', png(2, 2)));
    expect(photo.status).toBe(200);
    await stillAnswering();
  });

  it('answers the shared-check error of the photo route before reading any of the body', async () => {
    const tenant = await createTenant(s.stack);
    // Headers promise a large body of which only the start is sent: the answer cannot wait for it.
    const noToken = await partialUpload(s, { resource: tenant.publicKey });
    expect(noToken).toEqual({ status: 401, body: { error: 'auth_failed', error_description: expect.any(String), req_guid: anyRequestId } });
    const noResource = await partialUpload(s, { resource: 'no-such-resource' });
    expect(noResource).toEqual({
      status: 404,
      body: { error: 'resource_not_exists', error_description: expect.any(String), req_guid: anyRequestId },
    });
    await stillAnswering();
  });

  it('survives a member whose connection drops in the middle of an upload', async () => {
    const { headers } = await signedIn(s);
    await abortedUpload(s, headers);
    await stillAnswering();
    expect(await post('/user/photo', headers, filePart('photo', png(2, 2)))).toMatchObject({ status: 200 });
  });
});

/** POST /user/photo promising 1 MiB and sending 1 KiB of it: resolves with the answer that comes anyway. */
function partialUpload(s: StackHandle, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = new URL(`${s.stack.baseUrl}/user/photo`);
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': MULTIPART, 'content-length': String(1024 * 1024) },
    });
    const timer = setTimeout(() => {
      request.destroy();
      reject(new Error('no answer while the body was incomplete'));
    }, 5000);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
      });
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.write(filePart('photo', Buffer.alloc(1024, 'a')).subarray(0, 1024));
  });
}

/** POST /user/photo that sends part of its body, then closes the connection. */
async function abortedUpload(s: StackHandle, headers: Record<string, string>): Promise<void> {
  const url = new URL(`${s.stack.baseUrl}/user/photo`);
  const request = httpRequest(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': MULTIPART, 'content-length': String(64 * 1024) },
  });
  request.on('error', () => undefined);
  request.write(filePart('photo', Buffer.alloc(32 * 1024, 'a')).subarray(0, 16 * 1024));
  // Long enough for the gateway to pass the checks and start reading.
  await new Promise((resolve) => setTimeout(resolve, 300));
  request.destroy();
}
