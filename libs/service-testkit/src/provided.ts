import type {} from 'vitest';

/** What the root vitest globalSetup (tests/stack/src/global-setup.ts) provides to every file. */
export interface RunProvided {
  mongoUrl: string;
  natsUrl: string;
  /** FIREBASE_AUTH_EMULATOR_HOST of the run's Firebase Auth emulator; '' when it failed to start. */
  idpEmulatorHost: string;
  /** The emulator's (demo) project ID, which test resources name in their settings. */
  idpProjectId: string;
  /** localstripe's API base (CARDPROVIDER_API_BASE for billing); '' when it failed to start. */
  localStripeUrl: string;
  /** stripe-mock's API base; '' when it failed to start. */
  stripeMockUrl: string;
}

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an augmentation names its source
  export interface ProvidedContext extends RunProvided {}
}
