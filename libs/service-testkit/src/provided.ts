import type {} from 'vitest';

// What the root vitest globalSetup (libs/testkit/src/global-setup.ts) provides to every file.
declare module 'vitest' {
  export interface ProvidedContext {
    mongoUrl: string;
    natsUrl: string;
  }
}
