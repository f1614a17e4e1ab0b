import { randomBytes } from 'node:crypto';
import { connectMongo } from '@masthead/core/mongo';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Docstore } from '../src/idp/docstore.js';
import { FirebaseApps } from '../src/idp/firebase-apps.js';
import { FirestoreDocstore } from '../src/idp/firestore-docstore.js';
import { LocalDocstore } from '../src/idp/local-docstore.js';

// Provided by the root vitest globalSetup (tests/stack/src/global-setup.ts).
declare module 'vitest' {
  export interface ProvidedContext {
    mongoUrl: string;
    idpEmulatorHost: string;
  }
}

/**
 * The Docstore contract (ADR 0052), written once and run on every implementation. The Firestore
 * emulator cannot run on our machines (TOOLCHAIN.md), so FirestoreDocstore runs only where
 * FIRESTORE_EMULATOR_HOST names one; LocalDocstore always runs, on the test database.
 */
function docstoreContract(make: () => Docstore) {
  const project = () => `demo-contract-${randomBytes(4).toString('hex')}`;

  it('reads null for a document never written', async () => {
    expect(await make().getUser(project(), 'nobody')).toBeNull();
  });

  it('creates on first merge and returns the whole document', async () => {
    const docstore = make();
    const projectId = project();
    expect(await docstore.mergeUser(projectId, 'uid-1', { user_id: 7, email: 'a@example.test' })).toEqual({
      user_id: 7,
      email: 'a@example.test',
    });
    expect(await docstore.getUser(projectId, 'uid-1')).toEqual({ user_id: 7, email: 'a@example.test' });
  });

  it('merges: untouched fields stay, given ones (null too) are replaced', async () => {
    const docstore = make();
    const projectId = project();
    await docstore.mergeUser(projectId, 'uid-1', { a: 'one', b: true, c: 1.5 });
    expect(await docstore.mergeUser(projectId, 'uid-1', { b: null, d: 'four' })).toEqual({ a: 'one', b: null, c: 1.5, d: 'four' });
  });

  it('keeps documents apart by project and by document ID', async () => {
    const docstore = make();
    const [first, second] = [project(), project()];
    await docstore.mergeUser(first, 'uid-1', { owner: 'first' });
    await docstore.mergeUser(first, 'uid-2', { owner: 'other user' });
    await docstore.mergeUser(second, 'uid-1', { owner: 'second' });
    expect(await docstore.getUser(first, 'uid-1')).toEqual({ owner: 'first' });
    expect(await docstore.getUser(second, 'uid-1')).toEqual({ owner: 'second' });
  });

  it('applies concurrent merges of different fields without losing one', async () => {
    const docstore = make();
    const projectId = project();
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    await Promise.all(names.map((name) => docstore.mergeUser(projectId, 'uid-1', { [name]: name, shared: name })));
    const stored = await docstore.getUser(projectId, 'uid-1');
    expect(stored).toMatchObject(Object.fromEntries(names.map((name) => [name, name])));
    // One field written by all: last writer wins, and it is one of them.
    expect(names).toContain(stored?.['shared']);
  });
}

describe('LocalDocstore (test database)', () => {
  let db: Connection;
  beforeAll(async () => {
    db = await connectMongo({ url: inject('mongoUrl'), dbName: `docstore_${randomBytes(4).toString('hex')}` });
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });
  docstoreContract(() => new LocalDocstore(db));
});

describe.skipIf(!process.env['FIRESTORE_EMULATOR_HOST'])('FirestoreDocstore (Firestore emulator)', () => {
  docstoreContract(() => new FirestoreDocstore(new FirebaseApps({ emulatorHost: inject('idpEmulatorHost'), credentialsFile: undefined })));
});
