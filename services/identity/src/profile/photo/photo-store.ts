import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where photos live. One implementation today; an object store would be another (ADR 0063). */
export interface PhotoStore {
  /** Stores the bytes under a new unguessable name; returns the public URL. Throws on IO failure. */
  save(userId: number, content: Uint8Array, extension: string): Promise<string>;
  /** Removes a photo this store saved, by its URL; other URLs and missing files are ignored. */
  remove(url: string): Promise<void>;
}

/**
 * Photos as files in one directory (`PHOTO_STORAGE_DIR`; a mounted volume on Kubernetes), served
 * by the operator's web server or CDN under `PHOTO_PUBLIC_URL`. A new name per upload, so that
 * caches never serve an old photo under a new profile.
 */
export class LocalPhotoStore implements PhotoStore {
  constructor(
    private readonly directory: string,
    private readonly publicUrl: string,
  ) {}

  async save(userId: number, content: Uint8Array, extension: string): Promise<string> {
    const name = `${userId}-${randomBytes(12).toString('hex')}.${extension}`;
    await mkdir(this.directory, { recursive: true });
    await writeFile(join(this.directory, name), content, { flag: 'wx' });
    return `${this.publicUrl.replace(/\/+$/, '')}/${name}`;
  }

  async remove(url: string): Promise<void> {
    const prefix = `${this.publicUrl.replace(/\/+$/, '')}/`;
    const name = url.startsWith(prefix) ? url.slice(prefix.length) : '';
    // Only names this store makes: never a path outside the directory.
    if (!/^\d+-[0-9a-f]{24}\.[a-z]+$/.test(name)) return;
    await rm(join(this.directory, name), { force: true });
  }
}
