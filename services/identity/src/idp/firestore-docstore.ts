import { getFirestore } from 'firebase-admin/firestore';
import type { Docstore, DocstoreFields } from './docstore.js';
import type { FirebaseApps } from './firebase-apps.js';

/**
 * The production docstore: Cloud Firestore through firebase-admin, collection `users`. Not run
 * in tests: the Firestore emulator needs Java 21 and a download (TOOLCHAIN.md); the contract
 * test runs against LocalDocstore, and against this class where FIRESTORE_EMULATOR_HOST is set.
 */
export class FirestoreDocstore implements Docstore {
  constructor(private readonly apps: FirebaseApps) {}

  async mergeUser(projectId: string, documentId: string, fields: DocstoreFields): Promise<DocstoreFields> {
    const document = this.document(projectId, documentId);
    await document.set(fields, { merge: true });
    return (await this.getUser(projectId, documentId)) ?? {};
  }

  async getUser(projectId: string, documentId: string): Promise<DocstoreFields | null> {
    const snapshot = await this.document(projectId, documentId).get();
    return snapshot.exists ? (snapshot.data() as DocstoreFields) : null;
  }

  private document(projectId: string, documentId: string) {
    return getFirestore(this.apps.app(projectId)).collection('users').doc(documentId);
  }
}
