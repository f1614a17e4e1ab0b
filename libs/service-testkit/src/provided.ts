import type {} from 'vitest';

// What the root vitest globalSetup (tests/stack/src/global-setup.ts) provides to every file.
declare module 'vitest' {
  export interface ProvidedContext {
    mongoUrl: string;
    natsUrl: string;
    /** FIREBASE_AUTH_EMULATOR_HOST of the run's Firebase Auth emulator; '' when it failed to start. */
    idpEmulatorHost: string;
    /** The emulator's (demo) project ID. */
    idpProjectId: string;
    /** localstripe's API base (CARDPROVIDER_API_BASE for billing); '' when it failed to start. */
    localStripeUrl: string;
    /** stripe-mock's API base; '' when it failed to start. */
    stripeMockUrl: string;
  }
}
