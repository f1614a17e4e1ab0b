import { readFileSync } from 'node:fs';
import { applicationDefault, cert, getApps, initializeApp, type App } from 'firebase-admin/app';

export interface FirebaseAppOptions {
  /** host:port of the Auth emulator (development and test only; the config refuses it in production). */
  emulatorHost: string | undefined;
  /** Service-account JSON file; Google application default credentials when absent. */
  credentialsFile: string | undefined;
}

/** One firebase-admin app per provider project, created on first use and shared by auth and docstore. */
export class FirebaseApps {
  constructor(private readonly options: FirebaseAppOptions) {
    if (options.emulatorHost) {
      // firebase-admin reads the emulator host only from process.env; the config is the one
      // place that decides it (and refuses it in production).
      process.env['FIREBASE_AUTH_EMULATOR_HOST'] = options.emulatorHost;
    }
  }

  get emulatorHost(): string | undefined {
    return this.options.emulatorHost;
  }

  app(projectId: string): App {
    const name = `idp-${projectId}`;
    const existing = getApps().find((app) => app.name === name);
    if (existing) return existing;
    // The emulator needs no credentials; its tokens are unsigned.
    const credential = this.options.emulatorHost
      ? undefined
      : this.options.credentialsFile
        ? cert(JSON.parse(readFileSync(this.options.credentialsFile, 'utf8')) as object)
        : applicationDefault();
    return initializeApp({ projectId, ...(credential ? { credential } : {}) }, name);
  }
}
