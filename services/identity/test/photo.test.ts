import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPhoto } from '../src/profile/photo/photo-check.js';
import { LocalPhotoStore } from '../src/profile/photo/photo-store.js';

/** A GIF header is enough for both type and size detection: 'GIF89a', width, height (LE). */
const gif = (width: number, height: number) =>
  Buffer.concat([Buffer.from('GIF89a'), Buffer.from([width & 0xff, width >> 8, height & 0xff, height >> 8, 0, 0, 0]), Buffer.from([0x3b])]);

describe('checkPhoto', () => {
  it('identifies an image from its bytes and reads its size', async () => {
    expect(await checkPhoto(gif(3, 2))).toEqual({ mime: 'image/gif', extension: 'gif', width: 3, height: 2 });
  });

  it('refuses other types (415) and sizes out of bounds (422)', async () => {
    await expect(checkPhoto(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).rejects.toMatchObject({ status: 415 });
    await expect(checkPhoto(Buffer.from('plain text'))).rejects.toMatchObject({ status: 415, code: 'unsupported_photo_type' });
    await expect(checkPhoto(gif(4097, 1))).rejects.toMatchObject({ status: 422, code: 'invalid_photo' });
    await expect(checkPhoto(gif(0, 1))).rejects.toMatchObject({ status: 422, code: 'invalid_photo' });
  });
});

describe('LocalPhotoStore', () => {
  it('saves under a new unguessable name and removes only its own files', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'photo-store-'));
    const store = new LocalPhotoStore(join(directory, 'photos'), 'https://cdn.example.test/p/');
    const url = await store.save(7, gif(1, 1), 'gif');
    expect(url).toMatch(/^https:\/\/cdn\.example\.test\/p\/7-[0-9a-f]{24}\.gif$/);
    expect(await store.save(7, gif(1, 1), 'gif')).not.toBe(url);

    await writeFile(join(directory, 'outside.txt'), 'keep');
    await store.remove('https://cdn.example.test/p/../outside.txt');
    await store.remove('https://elsewhere.example.test/7-aaaaaaaaaaaaaaaaaaaaaaaa.gif');
    expect(await readdir(directory)).toContain('outside.txt');

    await store.remove(url);
    expect(await readdir(join(directory, 'photos'))).toHaveLength(1);
  });
});
